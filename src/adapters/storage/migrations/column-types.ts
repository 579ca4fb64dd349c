import type { Dialect } from '../database.ts';

/** The few column types that differ between the dialects. */
export function columnTypes(dialect: Dialect) {
  return {
    /** Epoch milliseconds and other values beyond 2^31. */
    bigint: dialect === 'postgres' ? ('bigint' as const) : ('integer' as const),
  };
}
