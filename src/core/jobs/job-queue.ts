/**
 * Background work. Jobs with the same key never run twice at once and a key queued while it runs runs once more
 * afterwards (so a burst of new-mail signals becomes one sync). In-process on SQLite; a PostgreSQL-backed queue
 * (one node per key) is the multi-node variant.
 */
export interface JobQueue {
  enqueue(key: string, run: () => Promise<void>, delayMs?: number): void;
  every(name: string, intervalMs: number, run: () => Promise<void>): void;
  /** Jobs running, queued to run again, or waiting for their delay (for metrics). */
  depth(): number;
  /** Stops timers and waits for running jobs. */
  stop(): Promise<void>;
}
