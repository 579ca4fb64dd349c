import type { JobQueue } from '../../core/jobs/job-queue.ts';
import type { Logger } from '../../lib/logger.ts';

/**
 * The single-process queue (SQLite): a map of running jobs per kind and key, timers for delays and intervals. At most
 * `concurrency` jobs run at once, the rest wait their turn in order: a thousand inboxes' first syncs at start-up do
 * not all hold a connection and their fetched mail at the same moment.
 */
export class InProcessQueue implements JobQueue {
  private readonly handlers = new Map<string, (key: string) => Promise<void>>();
  private readonly intervals = new Map<string, number>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private started = false;
  private stopped = false;
  private delayed = 0;
  private readonly log: Logger;
  private readonly concurrency: number;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(log: Logger, concurrency = 16) {
    this.log = log;
    this.concurrency = concurrency;
  }

  /** Resolves when a job may run; `release` gives its turn to the next one waiting. */
  private turn(): Promise<void> {
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.active--;
  }

  handle(kind: string, handler: (key: string) => Promise<void>): void {
    this.handlers.set(kind, handler);
  }

  every(kind: string, intervalMs: number): void {
    this.intervals.set(kind, intervalMs);
    if (this.started) this.tick(kind, intervalMs);
  }

  start(): Promise<void> {
    this.started = true;
    for (const [kind, ms] of this.intervals) this.tick(kind, ms);
    return Promise.resolve();
  }

  private tick(kind: string, ms: number): void {
    const t = setInterval(() => {
      void this.enqueue(kind, kind);
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  enqueue(kind: string, key: string, delayMs = 0): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (delayMs > 0) {
      this.delayed++;
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.delayed--;
        void this.enqueue(kind, key);
      }, delayMs);
      t.unref();
      this.timers.add(t);
      return Promise.resolve();
    }
    const id = `${kind}\u0000${key}`;
    if (this.running.has(id)) {
      this.again.add(id);
      return Promise.resolve();
    }
    const handler = this.handlers.get(kind);
    if (handler === undefined) {
      this.log.error({ job: kind }, 'no handler for this kind of job');
      return Promise.resolve();
    }
    const p = this.turn()
      .then(() => handler(key).finally(() => this.release()))
      .catch((e: unknown) => {
        this.log.error({ err: e, job: kind }, 'background job failed');
      })
      .finally(() => {
        this.running.delete(id);
        if (this.again.delete(id)) void this.enqueue(kind, key);
      });
    this.running.set(id, p);
    return Promise.resolve();
  }

  ready(): boolean {
    return !this.stopped;
  }

  depth(): number {
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
