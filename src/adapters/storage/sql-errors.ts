import { InboxGoneError } from '../../core/inboxes/inbox-errors.ts';

/** True for a unique or primary-key violation on either dialect (SQLite constraint codes, PostgreSQL 23505). */
export function isUniqueViolation(e: unknown): boolean {
  if (typeof e !== 'object' || e === null || !('code' in e)) return false;
  const code = e.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True for a foreign-key violation on either dialect: the row refers to one that is gone (PostgreSQL 23503). */
export function isForeignKeyViolation(e: unknown): boolean {
  if (typeof e !== 'object' || e === null || !('code' in e)) return false;
  return e.code === '23503' || e.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** True for PostgreSQL's "deadlock detected" (40P01): one of two transactions was aborted so the other could go on. */
export function isDeadlock(e: unknown): boolean {
  return typeof e === 'object' && e !== null && 'code' in e && e.code === '40P01';
}

/**
 * Deleting what cascades over an inbox's rows (an inbox, an account) while a change writes some of them can deadlock
 * on PostgreSQL: the cascade takes the rows in its order, the change in its own. PostgreSQL aborts one; if that was
 * the deletion, it runs again — the change it waited for has finished or been aborted by then. Decision 0064.
 */
export async function deleteAgainOnDeadlock<T>(del: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await del();
    } catch (e) {
      if (!isDeadlock(e) || attempt >= attempts) throw e;
    }
  }
}

/**
 * A write of rows that belong to an inbox: refused for a missing inbox (removed while the operation ran), it throws
 * `InboxGoneError`, which every transport answers as `inbox_not_found`.
 */
export async function inboxRowWrite<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (e) {
    if (isForeignKeyViolation(e)) throw new InboxGoneError();
    throw e;
  }
}

export const toDate = (ms: number): Date => new Date(ms);
export const toDateOrNull = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));
export const bit = (b: boolean): number => (b ? 1 : 0);
