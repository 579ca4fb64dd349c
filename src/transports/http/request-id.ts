import { randomUUID } from 'node:crypto';

/** The caller's X-Request-Id when short and plain (letters, digits, `_`, `-`, `=`), else a fresh UUID. */
export function requestIdOf(given: string | undefined): string {
  return given === undefined || given === '' || given.length > 255 || /[^\w\-=]/.test(given)
    ? randomUUID()
    : given;
}
