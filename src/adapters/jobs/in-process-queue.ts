import type { JobQueue } from '../../core/jobs/job-queue.ts';
import type { Logger } from '../../lib/logger.ts';

export class InProcessQueue implements JobQueue {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Map<string, () => Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  private delayed = 0;
  private readonly log: Logger;

  constructor(log: Logger) {
    this.log = log;
  }

  enqueue(key: string, run: () => Promise<void>, delayMs = 0): void {
    if (this.stopped) return;
    if (delayMs > 0) {
      this.delayed++;
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.delayed--;
        this.enqueue(key, run);
      }, delayMs);
      t.unref();
      this.timers.add(t);
      return;
    }
    if (this.running.has(key)) {
      this.again.set(key, run);
      return;
    }
    const p = run()
      .catch((e: unknown) => {
        this.log.error({ err: e, job: key }, 'background job failed');
      })
      .finally(() => {
        this.running.delete(key);
        const next = this.again.get(key);
        this.again.delete(key);
        if (next !== undefined) this.enqueue(key, next);
      });
    this.running.set(key, p);
  }

  every(name: string, intervalMs: number, run: () => Promise<void>): void {
    const t = setInterval(() => {
      this.enqueue(name, run);
    }, intervalMs);
    t.unref();
    this.timers.add(t);
  }

  depth(): number {
    // Timers include the recurring ones (one per `every`), which always wait: count only delayed jobs and work.
    return this.running.size + this.again.size + this.delayed;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.again.clear();
    await Promise.all(this.running.values());
  }
}
