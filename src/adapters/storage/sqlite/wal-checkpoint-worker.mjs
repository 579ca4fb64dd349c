// Runs in a worker thread (wal-checkpointer.ts): its own connection to the SQLite file, checkpointing the WAL
// into the database in the background so that the service's thread never does. Plain JavaScript: a TypeScript
// entry would make the worker load Node's type stripper too (~17 MB for the life of the process; decision 0027).
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

// What wal-checkpointer.ts sends: { path, intervalMs } (untyped here, so read member by member).
// eslint-disable-next-line @typescript-eslint/no-unsafe-member-access
const path = String(workerData.path);
// eslint-disable-next-line @typescript-eslint/no-unsafe-member-access
const intervalMs = Number(workerData.intervalMs);
const db = new BetterSqlite3(path);
db.pragma('busy_timeout = 1000');

/** Reports the outcome when asked; otherwise only failures. */
const checkpoint = (/** @type {boolean} */ asked) => {
  try {
    // PASSIVE: copies what no reader still needs, never waits for or blocks readers and writers.
    const [r] = /** @type {{ busy: number; log: number; checkpointed: number }[]} */ (
      db.pragma('wal_checkpoint(PASSIVE)')
    );
    if (asked) parentPort?.postMessage({ log: r?.log ?? 0, checkpointed: r?.checkpointed ?? 0 });
  } catch (e) {
    parentPort?.postMessage({ error: e instanceof Error ? e.message : String(e) });
  }
};
setInterval(() => {
  checkpoint(false);
}, intervalMs);
parentPort?.on('message', (m) => {
  if (m === 'checkpoint') checkpoint(true);
});
