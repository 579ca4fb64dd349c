import { resolve } from 'node:path';
import { BackupError, backupSqlite } from '../../adapters/storage/sqlite/backup.ts';
import { KEY_FILE_NAME } from '../../config/encryption-key.ts';
import { loadConfig } from '../../config/load-config.ts';
import { EXIT, type CliIo } from './cli-io.ts';

const USAGE = `Usage:
  inbox-triage backup <file>   Copy the SQLite database to a new file, consistently, while the service runs.
                               Keep a copy of the encryption key (DATA_DIR/encryption.key, or ENCRYPTION_KEY) too,
                               apart from the backups: the copy's mail credentials need it, and a thief as well.`;

/** An online backup of the SQLite database (decision 0055); on PostgreSQL, the operator's own pg_dump. */
export async function backupCommand(io: CliIo, args: string[]): Promise<number> {
  const [target, ...extra] = args;
  if (target === undefined || target.startsWith('-') || extra.length > 0) {
    io.err(USAGE);
    return EXIT.usage;
  }
  // Settings only: resolving the encryption key would create a key file where none is yet.
  const { config, raw } = loadConfig(io.env, io.cwd);
  if (config.database.kind === 'postgres') {
    io.err(
      'inbox-triage: the database is PostgreSQL (DATABASE_URL): back it up with pg_dump, and keep a copy of ENCRYPTION_KEY apart from the dumps',
    );
    return EXIT.usage;
  }
  const destination = resolve(io.cwd, target);
  try {
    const { bytes } = await backupSqlite(config.database.path, destination);
    const key = raw.encryptionKey === undefined ? resolve(config.dataDir, KEY_FILE_NAME) : 'ENCRYPTION_KEY';
    io.out(`Backed up ${config.database.path} to ${destination} (${(bytes / 2 ** 20).toFixed(1)} MB).`);
    io.out(
      `Keep a copy of ${key} too, apart from the backups: without it the mail credentials in the copy cannot be ` +
        'read, and with it anyone holding the copy can.',
    );
    return EXIT.ok;
  } catch (e) {
    if (e instanceof BackupError) {
      io.err(`inbox-triage: ${e.message}`);
      return EXIT.failure;
    }
    throw e;
  }
}
