/**
 * A request whose input no route accepts, found where the input is read (a form, a URL): every Hono route answers it
 * as 400 `invalid_request` with the message (root-app.ts), so a check need not know how its route answers errors.
 */
export class BadInputError extends Error {
  override readonly name = 'BadInputError';
}

export const NUL_REFUSED = 'The request holds a NUL character (U+0000), which no field accepts.';
