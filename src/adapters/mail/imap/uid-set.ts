/**
 * IMAP sequence sets (RFC 3501 §9 `sequence-set`) for UIDs. Servers reject overly long command lines
 * ("Too long argument"), so a list of 100k UIDs must go out as ranges: `1:5000,5002:10000`.
 */

/** Compresses UIDs (any order, duplicates allowed) into the shortest range form; '' for none. */
export function toUidSet(uids: Iterable<number>): string {
  const sorted = [...new Set(uids)].filter((u) => Number.isInteger(u) && u > 0).sort((a, b) => a - b);
  const parts: string[] = [];
  let start = sorted[0];
  let prev = start;
  for (let i = 1; i <= sorted.length; i++) {
    const uid = sorted[i];
    if (start === undefined || prev === undefined) break;
    if (uid === prev + 1) {
      prev = uid;
      continue;
    }
    parts.push(start === prev ? String(start) : `${start}:${prev}`);
    start = uid;
    prev = uid;
  }
  return parts.join(',');
}

/** Expands a sequence set without `*` (as ESEARCH returns it) into UIDs, ascending. */
export function fromUidSet(set: string): number[] {
  const out: number[] = [];
  for (const part of set.split(',')) {
    const [a, b] = part.split(':').map((s) => Number.parseInt(s, 10));
    if (a === undefined || Number.isNaN(a)) continue;
    const lo = b === undefined || Number.isNaN(b) ? a : Math.min(a, b);
    const hi = b === undefined || Number.isNaN(b) ? a : Math.max(a, b);
    for (let uid = lo; uid <= hi; uid++) out.push(uid);
  }
  return out.sort((x, y) => x - y);
}

/** Splits ascending UIDs into chunks, so one FETCH never asks for an unbounded number of messages. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
