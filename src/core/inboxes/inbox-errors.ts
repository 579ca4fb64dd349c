import type { NextStep } from '../next-step.ts';

/** Expected inbox outcomes, as values (STYLE.md practice 5); transports map each code once. */
export type InboxErrorCode =
  | 'inbox_not_found'
  | 'inbox_paused'
  | 'not_connected'
  | 'needs_reconnect'
  | 'not_supported'
  | 'invalid_arguments';

export interface InboxError {
  readonly code: InboxErrorCode;
  readonly message: string;
  readonly next?: NextStep;
}

export const inboxError = (code: InboxErrorCode, message: string, next?: NextStep): InboxError =>
  next === undefined ? { code, message } : { code, message, next };

/**
 * A write for an inbox that was removed while the operation ran: the database refused a row that refers to it.
 * Stores throw it in place of the foreign-key error; transports answer it as `inbox_not_found`, never as a failure of
 * the service (found by the HTTP fuzz: an unsubscribe proposal racing the inbox's removal).
 */
export class InboxGoneError extends Error {
  override readonly name = 'InboxGoneError';
  constructor() {
    super('The inbox was removed while this call ran.');
  }
}
