// Runs in a worker thread (wal-checkpointer.ts): its own connection to the SQLite file, checkpointing the WAL
// into the database in the background so that the service's thread never does.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = new BetterSqlite3(path);
db.pragma('busy_timeout = 1000');

/** Reports the outcome when asked; otherwise only failures. */
const checkpoint = (asked: boolean) => {
  try {
    // PASSIVE: copies what no reader still needs, never waits for or blocks readers and writers.
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    if (asked) parentPort?.postMessage({ log: r?.log ?? 0, checkpointed: r?.checkpointed ?? 0 });
  } catch (e) {
    parentPort?.postMessage({ error: e instanceof Error ? e.message : String(e) });
  }
};
setInterval(() => {
  checkpoint(false);
}, intervalMs);
parentPort?.on('message', (m: unknown) => {
  if (m === 'checkpoint') checkpoint(true);
});
