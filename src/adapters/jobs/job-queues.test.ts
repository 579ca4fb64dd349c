import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobQueueContract } from '../../core/jobs/job-queue.contract.ts';
import { silentLogger } from '../../lib/logger.ts';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { InProcessQueue } from './in-process-queue.ts';
import { PgBossQueue } from './pg-boss-queue.ts';

describe('the in-process queue', () => {
  jobQueueContract(() => ({ node: () => new InProcessQueue(silentLogger), shared: false }));
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
