/**
 * Tool failures, as DESIGN.md §4 fixes them: `{ error, message, sayToHuman?, retryAfterSeconds?, details? }`
 * with a stable code. Codes are never reused with a new meaning.
 */
export const TOOL_ERROR_CODES = [
  'invalid_arguments',
  'inbox_not_found',
  'inbox_paused',
  'not_connected',
  'needs_reconnect',
  'message_not_found',
  'not_supported',
  'confirmation_required',
  'vip_confirmation_required',
  'lease_held',
  'send_disabled',
  'human_approval_required',
  'approval_invalid',
  'approval_expired',
  'approval_used',
  'confirm_mismatch',
  'unsubscribe_unavailable',
  'undo_unavailable',
  'screened_not_found',
  'provider_error',
  'provider_rate_limited',
  'payment_required',
  'rate_limited',
  /** The person has not let this agent do what the tool does (decision 0141). */
  'not_allowed',
  'internal_error',
] as const;

export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

export interface ToolError {
  readonly error: ToolErrorCode;
  readonly message: string;
  readonly sayToHuman?: string;
  readonly retryAfterSeconds?: number;
  readonly details?: Record<string, unknown>;
  /** Present when the failure quotes sender-written text: what its markers are (untrusted-marks.ts). */
  readonly untrusted?: string;
}

export const toolError = (
  error: ToolErrorCode,
  message: string,
  extra: Omit<ToolError, 'error' | 'message'> = {},
) => ({ ok: false, error: { error, message, ...extra } }) as const;

// `const`: literal members (`started: false`) keep their literal type, so they can match an output schema's union.
export const toolOk = <const T extends Record<string, unknown>>(value: T) => ({ ok: true, value }) as const;

/** Success with data for the view only (the result's `_meta`, see ToolOutcome). */
export const toolOkForView = <const T extends Record<string, unknown>>(
  value: T,
  viewOnly: Record<string, unknown>,
) => ({ ok: true, value, viewOnly }) as const;
