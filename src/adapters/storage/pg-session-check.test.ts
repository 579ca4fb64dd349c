import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { startPgBouncer, type PgBouncer } from '../../../test/rig/pgbouncer.ts';
import { sessionsShared as sharedPool } from './pg-session-check.ts';

let pgUrl: string;
const bouncers: PgBouncer[] = [];
beforeAll(async () => {
  pgUrl = await freshPgDatabase();
});
afterAll(async () => {
  for (const b of bouncers) await b.stop();
});

async function bouncer(...args: Parameters<typeof startPgBouncer> extends [string, ...infer R] ? R : never) {
  const b = await startPgBouncer(pgUrl, ...args);
  bouncers.push(b);
  return b.url;
}

const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const p of pools) await p.end();
});

/** The check as the service asks it: on a connection of its pool first. */
function sessionsShared(url: string, timeoutMs: number) {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pools.push(pool);
  return sharedPool(pool, url, timeoutMs);
}

/** Leaves `n` server sessions idle in the pooler, as other clients (other nodes) leave them. */
async function warm(url: string, n: number): Promise<void> {
  const clients = Array.from({ length: n }, () => new pg.Client({ connectionString: url }));
  await Promise.all(clients.map((c) => c.connect()));
  await Promise.all(clients.map((c) => c.query('BEGIN').then(() => c.query('COMMIT'))));
  await Promise.all(clients.map((c) => c.end()));
}

describe('sessionsShared (decision 0131)', () => {
  it('a direct connection keeps its own session', async () => {
    expect(await sessionsShared(pgUrl, 5000)).toBeUndefined();
  });

  it('PgBouncer in session mode keeps each client its own, with sessions idle in its pool', async () => {
    const url = await bouncer('session');
    await warm(url, 6);
    expect(await sessionsShared(url, 5000)).toBeUndefined();
  });

  it('PgBouncer in transaction mode gives the next client the session used last', async () => {
    const url = await bouncer('transaction');
    await warm(url, 6);
    expect(await sessionsShared(url, 5000)).toBe('another client was given the session of the first');
  });

  it('PgBouncer in transaction mode handing its idle sessions out in turn is found within its idle ones', async () => {
    const url = await bouncer('transaction', { roundRobin: true });
    for (const idle of [0, 1, 2, 6]) {
      await warm(url, idle);
      expect(await sessionsShared(url, 5000), `${String(idle)} idle`).toMatch(/session/);
    }
  });

  it('PgBouncer in statement mode refuses the transaction', async () => {
    const url = await bouncer('statement');
    expect(await sessionsShared(url, 5000)).toMatch(/^it refused a transaction: .*statement/);
  });
});
