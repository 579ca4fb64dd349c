import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/** The WAL size, in pages, at which the service's own connection checkpoints if the worker has fallen behind. */
const BACKSTOP_PAGES = 10_000;

export interface WalCheckpointer {
  /** Asks for a checkpoint now; resolves with the WAL's frames and how many of them are in the database. */
  checkpointNow(): Promise<{ log: number; checkpointed: number }>;
  /** Whether the worker thread is running now (it runs only while the service writes). */
  running(): boolean;
  stop(): Promise<void>;
}

/** What the worker posts: `asked` answers a checkpointNow(); otherwise only a failure of its own tick. */
interface Reply {
  readonly asked?: boolean;
  readonly log?: number;
  readonly checkpointed?: number;
  readonly error?: string;
}

/**
 * Moves SQLite's WAL checkpoints off the service's thread. By default the connection that commits the
 * 1000th WAL page copies the WAL back into the database and fsyncs, inside that commit: 5–8 ms with the event
 * loop stopped, every couple of seconds under load (~4% of MCP throughput, and the p99 tail; docs/benchmarks-history.md).
 * Here a worker thread with its own connection runs a PASSIVE checkpoint every `intervalMs` after the service's
 * connection wrote (`total_changes()`, read on the service's thread, costs microseconds), and the service's
 * connection checkpoints itself only past `BACKSTOP_PAGES`, should the worker ever fall behind.
 *
 * The worker exists only while there is something to checkpoint: it starts on the first write and ends after
 * `idleMs` without one — a thread with its own V8 heap is ~10 MB an idle service does not need (decision 0027).
 */
export function startWalCheckpointer(
  sqlite: BetterSqlite3.Database,
  path: string,
  opts: { intervalMs?: number; idleMs?: number; onError?: (e: Error) => void } = {},
): WalCheckpointer {
  sqlite.pragma(`wal_autocheckpoint = ${String(BACKSTOP_PAGES)}`);
  const intervalMs = opts.intervalMs ?? 1000;
  const idleMs = opts.idleMs ?? 10_000;
  const changes = sqlite.prepare('select total_changes() as n').pluck();
  let seen = changes.get() as number;
  let lastWrite = 0;
  let worker: Worker | undefined;
  let waiting = 0; // checkpointNow() calls not answered yet
  let failed: Error | undefined;
  let stopped = false;

  const spawn = (): Worker => {
    const w = new Worker(new URL('./wal-checkpoint-worker.mjs', import.meta.url), { workerData: { path } });
    w.unref();
    w.on('error', (e: Error) => {
      // Without the worker the backstop still bounds the WAL and nothing is lost, but the operator should know.
      failed = e;
      opts.onError?.(e);
    });
    w.on('message', (m: Reply) => {
      if (m.error !== undefined && m.asked !== true)
        opts.onError?.(new Error(`WAL checkpoint failed: ${m.error}`));
    });
    w.once('exit', () => {
      if (worker === w) worker = undefined;
    });
    return w;
  };

  const tick = setInterval(() => {
    const n = changes.get() as number;
    const now = Date.now();
    if (n !== seen) {
      seen = n;
      lastWrite = now;
      if (failed !== undefined) return;
      worker ??= spawn();
      worker.postMessage('tick');
    } else if (worker !== undefined && waiting === 0 && now - lastWrite >= idleMs) {
      const w = worker;
      worker = undefined;
      void w.terminate();
    }
  }, intervalMs);
  tick.unref();

  return {
    running: () => worker !== undefined,
    checkpointNow: () =>
      new Promise((resolve, reject) => {
        if (failed !== undefined || stopped) {
          reject(failed ?? new Error('the WAL checkpointer has stopped'));
          return;
        }
        const w = (worker ??= spawn());
        lastWrite = Date.now();
        waiting++;
        const done = () => {
          waiting--;
          w.off('message', onMessage);
          w.off('exit', onExit);
        };
        const onMessage = (m: Reply) => {
          if (m.asked !== true) return;
          done();
          if (m.error !== undefined) reject(new Error(m.error));
          else resolve({ log: m.log ?? 0, checkpointed: m.checkpointed ?? 0 });
        };
        const onExit = () => {
          done();
          reject(failed ?? new Error('the WAL checkpoint worker has stopped'));
        };
        w.on('message', onMessage);
        w.once('exit', onExit);
        w.postMessage('checkpoint');
      }),
    stop: async () => {
      stopped = true;
      clearInterval(tick);
      const w = worker;
      worker = undefined;
      await w?.terminate();
    },
  };
}
