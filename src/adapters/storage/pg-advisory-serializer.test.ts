import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { PgAdvisorySerializer } from './pg-advisory-serializer.ts';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `n` works on `key` through the given serializers (round robin) and reports the most that overlapped. */
async function overlap(
  serializers: readonly PgAdvisorySerializer[],
  keys: (i: number) => string[],
  n: number,
) {
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      serializers[i % serializers.length]!.run(keys(i), async () => {
        inside++;
        most = Math.max(most, inside);
        await pause(5);
        inside--;
      }),
    ),
  );
  return most;
}

// Three "nodes" (three serializers, each with its own sessions) on one PostgreSQL database.
describe('PgAdvisorySerializer across processes', () => {
  let url: string;
  let nodes: PgAdvisorySerializer[];
  beforeAll(async () => {
    url = await freshPgDatabase();
    nodes = [0, 1, 2].map(() => new PgAdvisorySerializer(url, { size: 4 }));
  });
  afterAll(async () => {
    for (const n of nodes) await n.close();
  });

  it('runs work on one key one at a time across nodes', async () => {
    expect(await overlap(nodes, () => ['inbox_a'], 30)).toBe(1);
  });

  it('lets different keys run at once, and takes several keys without deadlock', async () => {
    expect(await overlap(nodes, (i) => [`inbox_${String(i)}`], 12)).toBeGreaterThan(1);
    // Overlapping key sets in opposite orders: sorted acquisition means everyone finishes.
    expect(await overlap(nodes, (i) => (i % 2 === 0 ? ['x', 'y'] : ['y', 'x']), 20)).toBe(1);
  });

  it('frees a key when the node holding it dies (its session ends)', async () => {
    let holder: number | undefined;
    const held = nodes[0]!.run(['inbox_dead'], async () => {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      const r = await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid() LIMIT 1",
      );
      holder = r.rows[0]?.pid;
      // The node "dies": its lock session is killed while the work is still running.
      await admin.query('SELECT pg_terminate_backend($1)', [holder]);
      await admin.end();
      await pause(50);
    });
    await held;
    expect(holder).toBeDefined();
    const started = Date.now();
    await nodes[1]!.run(['inbox_dead'], () => Promise.resolve());
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
