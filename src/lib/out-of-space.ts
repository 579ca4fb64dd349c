/**
 * Whether a failure is the disk being full: SQLite's `SQLITE_FULL`, PostgreSQL's `disk_full` (53100), or the system's
 * `ENOSPC`, on the error or a cause it wraps. Nothing the caller can retry its way out of: whoever runs the service
 * must free space (decision 0079).
 */
export function isOutOfSpace(e: unknown): boolean {
  for (let at = e, depth = 0; typeof at === 'object' && at !== null && depth < 5; depth++) {
    const code = (at as { code?: unknown }).code;
    if (code === 'SQLITE_FULL' || code === '53100' || code === 'ENOSPC') return true;
    at = (at as { cause?: unknown }).cause;
  }
  return false;
}

/** What an agent or a client is told of it, on every surface. */
export const OUT_OF_SPACE_WORDS =
  "The service's disk is full, so it can record nothing (the activity log, changes, drafts) and answers nothing until space is freed. Tell the person: whoever runs the service must free disk space.";

/** What a caller is told of failure `e`: the full disk's words when it is one, else `otherwise`. */
export function failureWords(e: unknown, otherwise: string): string {
  return isOutOfSpace(e) ? OUT_OF_SPACE_WORDS : otherwise;
}
