/**
 * Background work by kind and key (decision 0024). A job (kind, key) never runs on two nodes or twice at once;
 * asked for again while it runs, it runs once more afterwards, however many times it was asked (a burst of new-mail
 * signals becomes one more sync). A job whose node dies mid-run is run again by another node. In-process on SQLite;
 * pg-boss on PostgreSQL, where every node works the same queues.
 */
export interface JobQueue {
  /** This node works jobs of `kind`; the handler gets the job's key. */
  handle(kind: string, handler: (key: string) => Promise<void>): void;
  /** A job of `kind` about every `intervalMs` (its key is the kind), run by one node each time; from `start` on. */
  every(kind: string, intervalMs: number): void;
  start(): Promise<void>;
  /** Asks for the job (kind, key), after `delayMs`. Never throws: a failure to ask is logged. */
  enqueue(kind: string, key: string, delayMs?: number): Promise<void>;
  /** Whether this node takes jobs (started, not stopped, its backend reachable as far as it knows); for /readyz. */
  ready(): boolean;
  /** Jobs running on this node, or queued or waiting here (for metrics). */
  depth(): number;
  /** Stops taking jobs and waits for the running ones. */
  stop(): Promise<void>;
}
