/** True for a unique or primary-key violation on either dialect (SQLite constraint codes, PostgreSQL 23505). */
export function isUniqueViolation(e: unknown): boolean {
  if (typeof e !== 'object' || e === null || !('code' in e)) return false;
  const code = e.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export const toDate = (ms: number): Date => new Date(ms);
export const toDateOrNull = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));
export const bit = (b: boolean): number => (b ? 1 : 0);
