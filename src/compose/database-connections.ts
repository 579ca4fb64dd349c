import { JOB_QUEUE_CONNECTIONS } from '../adapters/jobs/pg-boss-queue.ts';
import { connectionAllowance, type PostgresDb } from '../adapters/storage/index.ts';

/** The lock pool: a session per inbox changed at once, as many as the main pool's up to 8 (decision 0133). */
export const lockSessions = (poolSize: number): number => Math.min(8, poolSize);

/** The most connections an instance opens: its main pool, its lock sessions, the job queue's and its watch session. */
const instanceConnections = (poolSize: number): number =>
  poolSize + lockSessions(poolSize) + JOB_QUEUE_CONNECTIONS + 1;

/**
 * A setting that starts but will not work under load (decision 0054): an instance that may open more connections than
 * the server grants its role here. Undefined when it fits.
 */
export async function connectionsWarning(
  db: PostgresDb,
): Promise<{ fields: Record<string, number>; words: string } | undefined> {
  const most = instanceConnections(db.poolSize);
  const allowed = await connectionAllowance(db);
  if (most <= allowed.connections) return undefined;
  return {
    fields: { connections: most, allowed: allowed.connections },
    words: `this instance may open up to ${String(most)} connections to PostgreSQL, more than the ${String(allowed.connections)} that ${allowed.limit} allows: lower DATABASE_POOL_SIZE (decision 0133)`,
  };
}
