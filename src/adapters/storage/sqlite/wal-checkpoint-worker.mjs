// Runs in a worker thread (wal-checkpointer.ts): its own connection to the SQLite file, checkpointing the WAL
// into the database when the service's thread says it wrote, so that the service's thread never does. Plain
// JavaScript: a TypeScript entry would make the worker load Node's type stripper too (~17 MB; decision 0027).
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

// What wal-checkpointer.ts sends: { path } (untyped here, so read member by member).
// eslint-disable-next-line @typescript-eslint/no-unsafe-member-access
const path = String(workerData.path);
const db = new BetterSqlite3(path);
db.pragma('busy_timeout = 1000');

/** 'tick': the service wrote, checkpoint and report only a failure; 'checkpoint': asked, report the outcome. */
parentPort?.on('message', (m) => {
  const asked = m === 'checkpoint';
  try {
    // PASSIVE: copies what no reader still needs, never waits for or blocks readers and writers.
    const [r] = /** @type {{ busy: number; log: number; checkpointed: number }[]} */ (
      db.pragma('wal_checkpoint(PASSIVE)')
    );
    if (asked) parentPort?.postMessage({ asked, log: r?.log ?? 0, checkpointed: r?.checkpointed ?? 0 });
  } catch (e) {
    parentPort?.postMessage({ asked, error: e instanceof Error ? e.message : String(e) });
  }
});
