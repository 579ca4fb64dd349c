/**
 * U+0000, the NUL character. No field of ours accepts it: it is not text anyone types, mail forbids it (RFC 5322),
 * and PostgreSQL cannot hold it in a text column at all — a lookup or a write with one fails there, where SQLite
 * takes it. So every surface refuses it where input arrives, as bad input in words, the same on both databases
 * (decision 0060). Mail a sender wrote is another matter: what it carries is stripped on the way in.
 */
export function holdsNul(s: string): boolean {
  return s.includes('\u0000');
}

/** Where the first string holding NUL sits in a JSON-like value (`items.0.query`; `` for the value itself). */
export function nulAt(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return holdsNul(value) ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (holdsNul(k)) return path === '' ? k : `${path}.${k}`;
    const at = nulAt(v, path === '' ? k : `${path}.${k}`);
    if (at !== undefined) return at;
  }
  return undefined;
}

/** A URL (as sent) that carries NUL, percent-encoded, in its path or query. */
export function urlHoldsNul(url: string): boolean {
  return /%00/.test(url) || holdsNul(url);
}
