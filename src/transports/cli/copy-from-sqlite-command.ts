import { existsSync } from 'node:fs';
import { copyFromSqlite } from '../../app.ts';
import { SchemaMismatchError, TargetNotEmptyError } from '../../adapters/storage/index.ts';
import { holdInstanceLock, InstanceRunningError } from '../../adapters/storage/sqlite/instance-lock.ts';
import { readConfiguration } from '../../config/index.ts';
import { loadConfig, sqlitePath } from '../../config/load-config.ts';
import { EXIT, type CliIo } from './cli-io.ts';

const USAGE = `Usage:
  DATABASE_URL=postgres://… inbox-triage copy-from-sqlite
      Copy everything the service keeps in DATA_DIR's SQLite database — accounts, inboxes and their sign-ins, keys,
      agents' sign-ins, the index, activity — into the new, empty PostgreSQL database DATABASE_URL names, to run
      several instances on it. Stop the service first. Use the same encryption key: the SQLite database's key
      (DATA_DIR/encryption.key, or ENCRYPTION_KEY), which every instance on PostgreSQL then needs too.`;

/** Moves a service from SQLite to PostgreSQL (decision 0140). */
export async function copyFromSqliteCommand(io: CliIo, args: string[]): Promise<number> {
  if (args.length > 0) {
    io.err(USAGE);
    return EXIT.usage;
  }
  const { config } = loadConfig(io.env, io.cwd);
  if (config.database.kind !== 'postgres') {
    io.err(`inbox-triage: set DATABASE_URL to the PostgreSQL database to copy into\n${USAGE}`);
    return EXIT.usage;
  }
  const source = sqlitePath(config.dataDir);
  if (!existsSync(source)) {
    io.err(`inbox-triage: no SQLite database at ${source} (is DATA_DIR right?)`);
    return EXIT.failure;
  }
  let lock;
  try {
    lock = holdInstanceLock(source);
  } catch (e) {
    if (!(e instanceof InstanceRunningError)) throw e;
    io.err(`inbox-triage: the service is running on ${source}: stop it first, then copy`);
    return EXIT.failure;
  }
  try {
    const { secrets } = readConfiguration(io.env, io.cwd);
    const copied = await copyFromSqlite(config, secrets);
    const rows = copied.reduce((n, t) => n + t.rows, 0);
    io.out(`Copied ${String(rows)} rows of ${String(copied.length)} tables from ${source} into PostgreSQL.`);
    io.out(
      'Start the instances with this DATABASE_URL and the same encryption key' +
        (io.env['ENCRYPTION_KEY'] === undefined
          ? ` (ENCRYPTION_KEY set to the contents of ${config.dataDir}/encryption.key, or that file in each DATA_DIR).`
          : ' (ENCRYPTION_KEY).') +
        ` ${source} is left as it was; keep it until the instances run.`,
    );
    return EXIT.ok;
  } catch (e) {
    if (e instanceof TargetNotEmptyError || e instanceof SchemaMismatchError) {
      io.err(`inbox-triage: ${e.message}`);
      return EXIT.failure;
    }
    throw e;
  } finally {
    lock.release();
  }
}
