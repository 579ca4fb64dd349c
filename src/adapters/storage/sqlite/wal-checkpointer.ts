import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/** The WAL size, in pages, at which the service's own connection checkpoints if the worker has fallen behind. */
const BACKSTOP_PAGES = 10_000;

export interface WalCheckpointer {
  /** Asks for a checkpoint now; resolves with the WAL's frames and how many of them are in the database. */
  checkpointNow(): Promise<{ log: number; checkpointed: number }>;
  stop(): Promise<void>;
}

/**
 * Moves SQLite's WAL checkpoints off the service's thread. By default the connection that commits the
 * 1000th WAL page copies the WAL back into the database and fsyncs, inside that commit: 5–8 ms with the event
 * loop stopped, every couple of seconds under load (~4% of MCP throughput, and the p99 tail; docs/benchmarks.md).
 * Here a worker thread with its own connection runs a PASSIVE checkpoint every `intervalMs`, and the service's
 * connection checkpoints itself only past `BACKSTOP_PAGES`, should the worker ever fall behind.
 */
export function startWalCheckpointer(
  sqlite: BetterSqlite3.Database,
  path: string,
  opts: { intervalMs?: number; onError?: (e: Error) => void } = {},
): WalCheckpointer {
  sqlite.pragma(`wal_autocheckpoint = ${String(BACKSTOP_PAGES)}`);
  const worker = new Worker(new URL('./wal-checkpoint-worker.mjs', import.meta.url), {
    workerData: { path, intervalMs: opts.intervalMs ?? 1000 },
  });
  worker.unref();
  let failed: Error | undefined;
  let exited = false;
  worker.once('exit', () => {
    exited = true;
  });
  worker.on('error', (e: Error) => {
    // Without the worker the backstop still bounds the WAL and nothing is lost, but the operator should know.
    failed = e;
    opts.onError?.(e);
  });
  worker.on('message', (m: { error?: string }) => {
    if (m.error !== undefined) opts.onError?.(new Error(`WAL checkpoint failed: ${m.error}`));
  });
  return {
    checkpointNow: () =>
      new Promise((resolve, reject) => {
        if (failed !== undefined || exited) {
          reject(failed ?? new Error('the WAL checkpoint worker has stopped'));
          return;
        }
        const done = () => {
          worker.off('message', onMessage);
          worker.off('exit', onExit);
        };
        const onMessage = (m: { log?: number; checkpointed?: number; error?: string }) => {
          done();
          if (m.error !== undefined) reject(new Error(m.error));
          else resolve({ log: m.log ?? 0, checkpointed: m.checkpointed ?? 0 });
        };
        const onExit = () => {
          done();
          reject(failed ?? new Error('the WAL checkpoint worker has stopped'));
        };
        worker.on('message', onMessage);
        worker.once('exit', onExit);
        worker.postMessage('checkpoint');
      }),
    stop: async () => {
      await worker.terminate();
    },
  };
}
