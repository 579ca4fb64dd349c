import { isOutOfSpace, OUT_OF_SPACE_WORDS } from '../../lib/out-of-space.ts';

/** The body shape of every HTTP error on agent-facing routes: `{ error, error_description }`, never cached. */
export function jsonError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ error, error_description: description }), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });
}

export function tooManyRequests(retryAfterSeconds: number): Response {
  return jsonError(
    429,
    'rate_limited',
    `Too many requests. Try again in ${String(retryAfterSeconds)} seconds.`,
    {
      'Retry-After': String(retryAfterSeconds),
    },
  );
}

/**
 * The last-resort 500 body: names the request id, never the error (the stack goes to the log only) — unless the disk
 * is full, which the caller can do nothing about but pass on.
 */
export const internalErrorBody = (requestId: string, e?: unknown) => ({
  error: 'internal_error',
  error_description: isOutOfSpace(e)
    ? `${OUT_OF_SPACE_WORDS} (request ${requestId})`
    : `Something went wrong on our side (request ${requestId}).`,
});
