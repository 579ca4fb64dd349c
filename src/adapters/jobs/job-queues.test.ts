import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobQueueContract } from '../../core/jobs/job-queue.contract.ts';
import { silentLogger } from '../../lib/logger.ts';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
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
});
