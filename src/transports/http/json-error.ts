import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** The body shape of every HTTP error we answer on agent-facing routes: `{ error, error_description }`. */
export function jsonError(
  c: Context,
  status: ContentfulStatusCode,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): Response {
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  c.header('Cache-Control', 'no-store');
  return c.json({ error, error_description: description }, status);
}

export function tooManyRequests(c: Context, retryAfterSeconds: number): Response {
  return jsonError(
    c,
    429,
    'rate_limited',
    `Too many requests. Try again in ${String(retryAfterSeconds)} seconds.`,
    { 'Retry-After': String(retryAfterSeconds) },
  );
}
