/**
 * U+0000, the NUL character. No field of ours accepts it: it is not text anyone types, mail forbids it (RFC 5322),
 * and PostgreSQL cannot hold it in a text column at all — a lookup or a write with one fails there, where SQLite
 * takes it. So every surface refuses it where input arrives, as bad input in words, the same on both databases
 * (decision 0060). Mail a sender wrote is another matter: what it carries is stripped on the way in.
 */
export function holdsNul(s: string): boolean {
  return s.includes('\u0000');
}

/**
 * Where the first string holding NUL sits in a JSON-like value (`items.0.query`; `` for the value itself). Walks
 * without recursion, so a body nested ten thousand deep (which parses) cannot overflow the stack.
 */
export function nulAt(value: unknown): string | undefined {
  // Each entry: a value, the entry it sits in, and its key there; the path is put together only for a find.
  const values: unknown[] = [value];
  const parents: number[] = [-1];
  const keys: string[] = [''];
  const pathOf = (i: number, last?: string): string => {
    const parts = last === undefined ? [] : [last];
    for (let at = i; at > 0; at = parents[at] ?? 0) parts.push(keys[at] ?? '');
    return parts.reverse().join('.');
  };
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'string') {
      if (holdsNul(v)) return pathOf(i);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v)) {
        if (holdsNul(k)) return pathOf(i, k);
        values.push(child);
        parents.push(i);
        keys.push(k);
      }
    }
  }
  return undefined;
}

/** A URL (as sent) that carries NUL, percent-encoded, in its path or query. */
export function urlHoldsNul(url: string): boolean {
  return /%00/.test(url) || holdsNul(url);
}
