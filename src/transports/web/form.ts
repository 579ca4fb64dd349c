import type { Context } from 'hono';
import { nulAt } from '../../lib/nul.ts';
import { BadInputError, NUL_REFUSED } from '../http/bad-input.ts';

/** A urlencoded or multipart form's body (`all`: repeated fields as arrays); NUL anywhere is a 400 (decision 0060). */
export async function formBody(c: Context, opts: { all?: boolean } = {}): Promise<Record<string, unknown>> {
  const body = await c.req.parseBody({ all: opts.all === true });
  if (nulAt(body) !== undefined) throw new BadInputError(NUL_REFUSED);
  return body;
}

/** Reads string fields of a urlencoded or multipart form; anything else reads as ''. NUL anywhere: 400. */
export async function formFields<K extends string>(c: Context, ...names: K[]): Promise<Record<K, string>> {
  const body = await formBody(c);
  const out = {} as Record<K, string>;
  for (const n of names) {
    const v = body[n];
    out[n] = typeof v === 'string' ? v : '';
  }
  return out;
}

/** Only same-site relative paths are allowed as a post-sign-in destination (no open redirects). */
export function safeNext(raw: string | undefined): string {
  return raw !== undefined && /^\/(?![/\\])[\w\-/.?=&%]*$/.test(raw) ? raw : '/settings';
}
