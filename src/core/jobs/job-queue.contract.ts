import { afterEach, describe, expect, it } from 'vitest';
import type { JobQueue } from './job-queue.ts';

export interface JobQueueHarness {
  /** A node: a new queue; on a shared backend every node works the same jobs. */
  node(): JobQueue;
  /** Whether several nodes can share jobs (false for the in-process queue). */
  readonly shared: boolean;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await pause(20);
  }
}
let n = 0;
/** A kind no other case uses (queues outlive a case on a shared backend). */
const fresh = (name: string) =>
  `${name}-${String(process.pid)}-${String(++n)}-${String(Date.now() % 100000)}`;

/** A handler that records its runs and holds each until `release()`; tracks how many run at once per key. */
function gate() {
  const runs: string[] = [];
  let inside = new Map<string, number>();
  let most = 0;
  let open: (() => void)[] = [];
  return {
    runs,
    most: () => most,
    waiting: () => open.length,
    release: () => {
      const o = open;
      open = [];
      for (const f of o) f();
    },
    handler: async (key: string) => {
      runs.push(key);
      inside.set(key, (inside.get(key) ?? 0) + 1);
      most = Math.max(most, inside.get(key) ?? 0);
      await new Promise<void>((r) => open.push(r));
      inside = new Map(inside).set(key, (inside.get(key) ?? 1) - 1);
    },
  };
}

export function jobQueueContract(h: () => JobQueueHarness): void {
  describe('JobQueue contract', () => {
    const started: JobQueue[] = [];
    const node = async (setup: (q: JobQueue) => void) => {
      const q = h().node();
      setup(q);
      await q.start();
      started.push(q);
      return q;
    };
    afterEach(async () => {
      for (const q of started.splice(0)) await q.stop();
    });

    it('runs a job with its key', async () => {
      const kind = fresh('run');
      const seen: string[] = [];
      const q = await node((x) => {
        x.handle(kind, (key) => {
          seen.push(key);
          return Promise.resolve();
        });
      });
      await q.enqueue(kind, 'inbox_a');
      await until(() => seen.length === 1);
      expect(seen).toEqual(['inbox_a']);
    });

    it('runs one key one at a time; asked again while it runs, it runs exactly once more', async () => {
      const kind = fresh('again');
      const g = gate();
      const q = await node((x) => {
        x.handle(kind, g.handler);
      });
      await q.enqueue(kind, 'k');
      await until(() => g.runs.length === 1);
      for (let i = 0; i < 5; i++) await q.enqueue(kind, 'k');
      await pause(300);
      expect(g.runs).toHaveLength(1);
      g.release();
      await until(() => g.runs.length === 2);
      g.release();
      await pause(300);
      g.release();
      expect(g.runs).toEqual(['k', 'k']);
      expect(g.most()).toBe(1);
    });

    it('runs different keys at once', async () => {
      const kind = fresh('keys');
      const g = gate();
      const q = await node((x) => {
        x.handle(kind, g.handler);
      });
      await q.enqueue(kind, 'a');
      await q.enqueue(kind, 'b');
      await until(() => g.waiting() === 2);
      g.release();
    });

    it('waits out a delay', async () => {
      const kind = fresh('delay');
      const seen: number[] = [];
      const q = await node((x) => {
        x.handle(kind, () => {
          seen.push(Date.now());
          return Promise.resolve();
        });
      });
      const asked = Date.now();
      await q.enqueue(kind, 'later', 1500);
      await until(() => seen.length === 1);
      expect(seen[0]! - asked).toBeGreaterThanOrEqual(1000);
    });

    it('runs a periodic job, also one asked for after start, and its kind still takes direct asks', async () => {
      const kind = fresh('tick');
      let ticks = 0;
      const q = await node((x) => {
        x.handle(kind, () => {
          ticks++;
          return Promise.resolve();
        });
      });
      q.every(kind, 1000);
      await until(() => ticks >= 2);
      const before = ticks;
      await q.enqueue(kind, kind);
      await until(() => ticks > before);
    });

    it('a periodic run and a direct ask of the same kind never run at once, on any node', async () => {
      const kind = fresh('tick-once');
      const g = gate();
      const nodes: JobQueue[] = [];
      for (let i = 0; i < (h().shared ? 2 : 1); i++)
        nodes.push(
          await node((x) => {
            x.handle(kind, g.handler);
            x.every(kind, 500);
          }),
        );
      await until(() => g.runs.length === 1); // a tick's run, held open
      for (const q of nodes) await q.enqueue(kind, kind); // asked for directly meanwhile
      await pause(2000); // and more ticks come due
      expect(g.most()).toBe(1);
      g.release();
      await until(() => g.runs.length >= 2); // what was asked meanwhile runs after it, once at a time
      // Ticks keep coming: let every run through while the nodes stop.
      const drain = setInterval(g.release, 20);
      try {
        for (const q of nodes) await q.stop();
      } finally {
        clearInterval(drain);
      }
      expect(g.most()).toBe(1);
    }, 20_000);

    it('stop waits for the running jobs', async () => {
      const kind = fresh('drain');
      let done = false;
      const q = h().node();
      q.handle(kind, async () => {
        await pause(300);
        done = true;
      });
      await q.start();
      await q.enqueue(kind, 'x');
      await until(() => q.depth() > 0);
      await q.stop();
      expect(done).toBe(true);
    });

    it('across nodes: one key runs on one node at a time, and asking from any node queues one more run', async () => {
      if (!h().shared) return;
      const kind = fresh('nodes');
      const g = gate();
      const nodes = [
        await node((x) => {
          x.handle(kind, g.handler);
        }),
        await node((x) => {
          x.handle(kind, g.handler);
        }),
        await node((x) => {
          x.handle(kind, g.handler);
        }),
      ];
      await nodes[0]!.enqueue(kind, 'k');
      await until(() => g.runs.length === 1);
      for (const q of nodes) await q.enqueue(kind, 'k');
      await pause(1500);
      expect(g.runs).toHaveLength(1);
      g.release();
      await until(() => g.runs.length === 2);
      g.release();
      await pause(1500);
      expect(g.runs).toHaveLength(2);
      expect(g.most()).toBe(1);
    });

    it('across nodes: a periodic job runs once per interval, not once per node', async () => {
      if (!h().shared) return;
      const kind = fresh('shared-tick');
      let ticks = 0;
      const count = () => {
        ticks++;
        return Promise.resolve();
      };
      for (let i = 0; i < 3; i++)
        await node((x) => {
          x.handle(kind, count);
          x.every(kind, 2000);
        });
      await pause(7000);
      // Three timers every 2 s for 7 s would give 9 runs; one per 2-second slot gives 3 or 4.
      expect(ticks).toBeGreaterThanOrEqual(2);
      expect(ticks).toBeLessThanOrEqual(5);
    }, 20_000);
  });
}
