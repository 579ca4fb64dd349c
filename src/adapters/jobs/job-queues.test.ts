import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jobQueueContract } from '../../core/jobs/job-queue.contract.ts';
import { silentLogger } from '../../lib/logger.ts';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { startFaultProxy, type FaultProxy } from '../../../test/rig/fault-proxy.ts';
import { InProcessQueue } from './in-process-queue.ts';
import { PgBossQueue } from './pg-boss-queue.ts';

describe('the in-process queue', () => {
  jobQueueContract(() => ({ node: () => new InProcessQueue(silentLogger), shared: false }));

  it('runs at most its concurrency of jobs at once; the others wait their turn and all run', async () => {
    const queue = new InProcessQueue(silentLogger, 4);
    let active = 0;
    let most = 0;
    const done: string[] = [];
    queue.handle('work', async (key) => {
      active++;
      most = Math.max(most, active);
      await new Promise((resolve) => setTimeout(resolve, 5));
      active--;
      done.push(key);
      if (key === 'k3') throw new Error('a failing job gives its turn back too');
    });
    await queue.start();
    for (let i = 0; i < 20; i++) await queue.enqueue('work', `k${String(i)}`);
    await queue.stop();
    expect(most).toBe(4);
    expect(done.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `k${String(i)}`).sort());
  });
});

describe('the pg-boss queue (several nodes on one PostgreSQL)', () => {
  let url = '';
  beforeAll(async () => {
    url = await freshPgDatabase();
  });
  const node = (o: { heartbeatSeconds?: number; superviseSeconds?: number } = {}) =>
    new PgBossQueue({ connectionString: url, log: silentLogger, superviseSeconds: 1, ...o });
  jobQueueContract(() => ({ node: () => node(), shared: true }));

  it("defers a job by the database's clock, not by this machine's (decision 0129)", async () => {
    const kind = `later-${String(Date.now() % 100000)}`;
    const q = node();
    q.handle(kind, () => Promise.resolve());
    await q.start();
    try {
      // This machine's clock a day ahead of the database's while the job is asked for an hour on.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 86_400_000);
      try {
        await q.enqueue(kind, 'k', 3_600_000);
      } finally {
        vi.useRealTimers();
      }
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const r = await client.query<{ s: number }>(
          'SELECT extract(epoch FROM start_after - now())::float8 AS s FROM pgboss.job WHERE name = $1',
          [kind],
        );
        expect(r.rows).toHaveLength(1);
        expect(r.rows[0]!.s).toBeGreaterThan(3_590);
        expect(r.rows[0]!.s).toBeLessThanOrEqual(3_601);
      } finally {
        await client.end();
      }
    } finally {
      await q.stop();
    }
  });

  describe('a node that stops mid-job', () => {
    const nodes: PgBossQueue[] = [];
    afterAll(async () => {
      for (const q of nodes) await q.stop().catch(() => undefined);
    });

    it('a node stopped mid-job without finishing it: another node runs the job again', async () => {
      const kind = `crash-${String(Date.now() % 100000)}`;
      const ranOn: string[] = [];
      const doomed = node({ heartbeatSeconds: 10 });
      doomed.handle(kind, () => {
        ranOn.push('doomed');
        return new Promise<void>(() => undefined); // holds the job until the node dies
      });
      await doomed.start();
      await doomed.enqueue(kind, 'inbox_x');
      while (ranOn.length === 0) await new Promise((r) => setTimeout(r, 20));
      await doomed.halt();
      const survivor = node({ heartbeatSeconds: 10 });
      nodes.push(survivor);
      survivor.handle(kind, (key) => {
        ranOn.push(`survivor:${key}`);
        return Promise.resolve();
      });
      await survivor.start();
      const deadline = Date.now() + 25_000;
      while (!ranOn.includes('survivor:inbox_x') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(ranOn).toEqual(['doomed', 'survivor:inbox_x']);
    }, 40_000);
  });
});

// The database away for a few seconds (a restart, a failover) under a node working its queue (decision 0077).
describe('the pg-boss queue while its database is away', () => {
  let proxy: FaultProxy;
  let url = '';
  const queues: PgBossQueue[] = [];
  beforeAll(async () => {
    const u = new URL(await freshPgDatabase());
    proxy = await startFaultProxy({ host: u.hostname, port: Number(u.port) });
    u.port = String(proxy.port);
    url = u.toString();
  });
  afterAll(async () => {
    for (const q of queues) await q.stop().catch(() => undefined);
    await proxy.close();
  });
  const node = () => {
    const q = new PgBossQueue({
      connectionString: url,
      log: silentLogger,
      superviseSeconds: 5,
      heartbeatSeconds: 10,
    });
    queues.push(q);
    return q;
  };
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  async function until(what: string, done: () => boolean, ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (!done()) {
      if (Date.now() > end) throw new Error(`${what}: not within ${String(ms)} ms`);
      await pause(100);
    }
  }

  it('an ask made while the database is away is sent once it answers again', async () => {
    const q = node();
    const ran: string[] = [];
    q.handle('away-ask', (key) => {
      ran.push(key);
      return Promise.resolve();
    });
    await q.start();
    proxy.refuse(true);
    await q.enqueue('away-ask', 'inbox_a'); // a watcher's news of new mail, during the outage
    await pause(1500);
    expect(ran).toEqual([]);
    proxy.refuse(false);
    await until('the ask sent and run', () => ran.length > 0, 20_000);
    expect(ran).toEqual(['inbox_a']);
  }, 40_000);

  it('a job whose end the outage swallowed is recorded finished once the database answers, freeing its key', async () => {
    const q = node();
    const runs: number[] = [];
    let finish: () => void = () => undefined;
    q.handle('away-run', async () => {
      runs.push(Date.now());
      if (runs.length === 1) await new Promise<void>((r) => (finish = r));
    });
    await q.start();
    await q.enqueue('away-run', 'inbox_b');
    await until('the first run', () => runs.length === 1, 20_000);
    proxy.refuse(true);
    finish(); // done, but pg-boss cannot record it: the job stays active in the table
    await pause(3000);
    proxy.refuse(false);
    await until('the queue ready again', () => q.ready(), 20_000);
    await q.enqueue('away-run', 'inbox_b'); // new mail: one more run of the key
    // Left to pg-boss, the job stayed active until its heartbeat (10 s) lapsed and a supervisor pass saw it: 10–45 s
    // here, 65 s with pg-boss's default monitor interval.
    await until('the next run of the key', () => runs.length === 2, 8_000);
  }, 60_000);
});

describe('the pg-boss queue on a database that ends idle sessions (idle_session_timeout)', () => {
  it('its pool keeps its sessions, and its LISTEN session ending now and then is not the queue failing', async () => {
    const url = await freshPgDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // A host's setting for every session of the database, as some set it to reap forgotten connections.
    await admin.query(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET idle_session_timeout = '1s'`);
    const q = new PgBossQueue({ connectionString: url, log: silentLogger, superviseSeconds: 1 });
    q.handle('idle', () => Promise.resolve());
    await q.start();
    try {
      const unready: number[] = [];
      const pooled = new Set<string>();
      let listening = 0;
      for (let i = 0; i < 30; i++) {
        if (!q.ready()) unready.push(i);
        const { rows } = await admin.query<{ started: string; query: string }>(
          `SELECT backend_start::text AS started, query FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = 'inbox-triage-jobs'`,
        );
        for (const r of rows)
          if (/listen/i.test(r.query)) listening++;
          else pooled.add(r.started);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(unready).toEqual([]);
      // Each session of the pool was opened once and kept (no idle limit in them); the LISTEN one is pg-boss's own.
      expect(pooled.size).toBeLessThanOrEqual(4);
      expect(listening).toBeGreaterThan(0);
    } finally {
      await q.stop();
      await admin.end();
    }
  });
});
