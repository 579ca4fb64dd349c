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
