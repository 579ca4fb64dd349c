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
