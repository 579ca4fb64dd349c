import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobQueueContract } from '../../core/jobs/job-queue.contract.ts';
import { silentLogger } from '../../lib/logger.ts';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { startFaultProxy } from '../../../test/rig/fault-proxy.ts';
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

  // Decision 0063: a network that drops PostgreSQL's connections without a word leaves every statement on them
  // waiting for the node's TCP to give up (minutes). The queue's own pool is bounded by the same deadline as the
  // service's: its statements on the dead connections are given up, the connections dropped, and new ones made.
  it('its connections fallen silent: the queue gives them up and runs jobs again on new ones', async () => {
    const real = new URL(url);
    const proxy = await startFaultProxy({ host: real.hostname, port: Number(real.port) });
    real.port = String(proxy.port);
    const kind = `silent-${String(Date.now() % 100000)}`;
    const queue = new PgBossQueue({
      connectionString: real.toString(),
      log: silentLogger,
      superviseSeconds: 1,
      deadlineMs: 500,
    });
    const ran: string[] = [];
    queue.handle(kind, (key) => {
      ran.push(key);
      return Promise.resolve();
    });
    try {
      await queue.start();
      await queue.enqueue(kind, 'before');
      while (!ran.includes('before')) await new Promise((r) => setTimeout(r, 20));
      proxy.inject({ kind: 'stall', ms: 3_600_000 }); // every open connection falls silent; new ones pass
      // An ask on a silent connection is given up (logged, as any failed ask) instead of waiting; asked again, it
      // finds a new connection. Without the deadline the first ask never returns.
      await queue.enqueue(kind, 'after');
      while (!ran.includes('after')) {
        await new Promise((r) => setTimeout(r, 200));
        await queue.enqueue(kind, 'after');
      }
      while (!queue.ready()) await new Promise((r) => setTimeout(r, 50));
      expect(ran.slice(0, 2)).toEqual(['before', 'after']);
    } finally {
      proxy.clear();
      await queue.halt().catch(() => undefined);
      await proxy.close();
    }
  }, 30_000);
});
