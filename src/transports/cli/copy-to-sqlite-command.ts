import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { copyToSqlite } from '../../app.ts';
import { SchemaMismatchError, TargetNotEmptyError } from '../../adapters/storage/index.ts';
import { ServiceRunningError } from '../../adapters/storage/key-rotation.ts';
import { holdInstanceLock } from '../../adapters/storage/sqlite/instance-lock.ts';
import { readConfiguration } from '../../config/index.ts';
import { loadConfig, sqlitePath } from '../../config/load-config.ts';
import { EXIT, type CliIo } from './cli-io.ts';

const USAGE = `Usage:
  DATABASE_URL=postgres://… DATA_DIR=/path/to/new/dir inbox-triage copy-to-sqlite
      Copy everything the instances keep in the PostgreSQL database DATABASE_URL names — accounts, inboxes and their
      sign-ins, keys, agents' sign-ins, the index, activity — into a new SQLite database in DATA_DIR, to run one
      instance on it. Stop every instance first. Use the same encryption key (ENCRYPTION_KEY), which the service on
      SQLite then needs too. The PostgreSQL database is left as it was.`;

/** Moves a service from PostgreSQL back to SQLite (decision 0152). */
export async function copyToSqliteCommand(io: CliIo, args: string[]): Promise<number> {
  if (args.length > 0) {
    io.err(USAGE);
    return EXIT.usage;
  }
  const { config } = loadConfig(io.env, io.cwd);
  if (config.database.kind !== 'postgres') {
    io.err(`inbox-triage: set DATABASE_URL to the PostgreSQL database to copy from\n${USAGE}`);
    return EXIT.usage;
  }
  const target = sqlitePath(config.dataDir);
  if (existsSync(target)) {
    io.err(
      `inbox-triage: there is a database at ${target} already: set DATA_DIR to a new directory, or move that one away`,
    );
    return EXIT.failure;
  }
  // No service starts on the new file while it is being written.
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  const lock = holdInstanceLock(target);
  let done = false;
  try {
    const { secrets } = readConfiguration(io.env, io.cwd);
    const copied = await copyToSqlite(config, secrets, target);
    const rows = copied.reduce((n, t) => n + t.rows, 0);
    done = true;
    io.out(`Copied ${String(rows)} rows of ${String(copied.length)} tables from PostgreSQL into ${target}.`);
    io.out(
      `Start one instance with this DATA_DIR, without DATABASE_URL, and with the same encryption key (ENCRYPTION_KEY,` +
        ` or that key in ${config.dataDir}/encryption.key). The PostgreSQL database is left as it was.`,
    );
    return EXIT.ok;
  } catch (e) {
    if (
      e instanceof TargetNotEmptyError ||
      e instanceof SchemaMismatchError ||
      e instanceof ServiceRunningError
    ) {
      io.err(`inbox-triage: ${e.message}`);
      return EXIT.failure;
    }
    throw e;
  } finally {
    // A copy that did not finish leaves no file behind (it made the file): the next try starts clean.
    if (!done) for (const f of [target, `${target}-wal`, `${target}-shm`]) rmSync(f, { force: true });
    lock.release();
  }
}
