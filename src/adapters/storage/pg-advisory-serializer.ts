import type pg from 'pg';
import { LazyModule } from '../lazy-module.ts';

const pgModule = new LazyModule<typeof pg>('pg');
import { KeyedMutex, type Serializer } from '../../lib/keyed-mutex.ts';
import { withReadySessions } from './pg-peer-check.ts';

/**
 * One-at-a-time per key across every process on one PostgreSQL (decision 0024): callers in this process queue on an
 * in-process mutex first, so only one of them per key holds a database session; that one takes PostgreSQL
 * session-level advisory locks on all its keys (in sorted order, as every node does, so nodes cannot deadlock), runs
 * the work, and unlocks. If the process dies, its sessions end and PostgreSQL frees the locks.
 *
 * The lock sessions come from a small pool of their own: the work itself queries through the main pool, and a lock
 * holder waiting for a main-pool connection held by another lock holder could otherwise wait forever.
 */
export class PgAdvisorySerializer implements Serializer {
  private readonly local = new KeyedMutex();
  private readonly pool: pg.Pool;

  constructor(connectionString: string, o: { size?: number; deadlineMs?: number } = {}) {
    // A node that dies holding a lock without its connection closing (power, network) frees it within ~30 s.
    this.pool = new (pgModule.load().Pool)(
      withReadySessions(
        { connectionString, max: o.size ?? 8, application_name: 'inbox-triage-locks' },
        o.deadlineMs ?? 0,
      ),
    );
    this.pool.on('error', () => undefined);
  }

  run<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    return this.local.run(sorted, async () => {
      const session = await this.pool.connect();
      const state = { healthy: true };
      // A session cut while checked out emits 'error' on the client, not the pool: without a listener, a crash.
      const lost = () => {
        state.healthy = false;
      };
      session.on('error', lost);
      try {
        for (const key of sorted)
          await session.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`inbox-triage:${key}`]);
        return await work();
      } finally {
        try {
          if (state.healthy) await session.query('SELECT pg_advisory_unlock_all()');
        } catch {
          state.healthy = false;
        }
        session.off('error', lost);
        // A session that failed to unlock is dropped, which ends it and frees whatever it held.
        session.release(!state.healthy);
      }
    });
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
