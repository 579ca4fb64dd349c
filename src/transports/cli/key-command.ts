import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { adoptKey, rotateKey } from '../../app.ts';
import { holdInstanceLock, InstanceRunningError } from '../../adapters/storage/sqlite/instance-lock.ts';
import { KEY_FILE_NAME, stageKeyFile } from '../../config/encryption-key.ts';
import { readConfiguration } from '../../config/index.ts';
import { loadConfig } from '../../config/load-config.ts';
import { EXIT, type CliIo } from './cli-io.ts';

const USAGE = `Usage:
  inbox-triage key rotate   Seal the stored mail credentials under a new key and make it the database's key. Give the
                            new key as NEW_ENCRYPTION_KEY (32 random bytes in base64: openssl rand -base64 32), the
                            current one as the service has it. Stop every instance first. With ENCRYPTION_KEY unset,
                            DATA_DIR/encryption.key is replaced by the new key; with it set, start every instance
                            with ENCRYPTION_KEY set to the new key.
  inbox-triage key adopt    Make this instance's key (ENCRYPTION_KEY, or DATA_DIR/encryption.key) the database's key,
                            when the key the database was set up with is lost for good. Mail credentials stored
                            under the old key cannot be read: each inbox asks to be reconnected.`;

/** Operator commands for the encryption key (decisions 0042, 0066). */
export async function keyCommand(io: CliIo, args: string[]): Promise<number> {
  if (args.length === 1 && args[0] === 'rotate') return rotate(io);
  if (args.length !== 1 || args[0] !== 'adopt') {
    io.err(USAGE);
    return EXIT.usage;
  }
  const { config, secrets } = readConfiguration(io.env, io.cwd);
  await adoptKey(config, secrets);
  io.out(
    "This instance's key is now the database's key. Start every instance with it; reconnect each inbox whose " +
      'credentials were stored under the old key.',
  );
  return EXIT.ok;
}

async function rotate(io: CliIo): Promise<number> {
  const given = io.env['NEW_ENCRYPTION_KEY'];
  const next = Buffer.from(given ?? '', 'base64');
  if (next.length !== 32) {
    io.err(
      'inbox-triage: NEW_ENCRYPTION_KEY: expected 32 random bytes in base64 (generate with: openssl rand -base64 32)',
    );
    return EXIT.usage;
  }
  const { config, raw } = loadConfig(io.env, io.cwd);
  const keyFile = join(config.dataDir, KEY_FILE_NAME);
  // Reading the current key must not make one: with no key file and no ENCRYPTION_KEY there is nothing to rotate.
  if (raw.encryptionKey === undefined && !existsSync(keyFile)) {
    io.err(`inbox-triage: no key to rotate from: ENCRYPTION_KEY is not set and ${keyFile} does not exist`);
    return EXIT.usage;
  }
  const { secrets } = readConfiguration(io.env, io.cwd);
  if (next.equals(secrets.encryptionKey)) {
    io.err('inbox-triage: NEW_ENCRYPTION_KEY is the current key: nothing to rotate');
    return EXIT.usage;
  }
  // On SQLite the lock a running service holds (decision 0052): taken here, no service starts until the end.
  const sqlitePath = config.database.kind === 'sqlite' ? config.database.path : undefined;
  let instance;
  try {
    instance = sqlitePath === undefined ? undefined : holdInstanceLock(sqlitePath);
  } catch (e) {
    if (!(e instanceof InstanceRunningError)) throw e;
    io.err(
      `inbox-triage: the service is running on ${String(sqlitePath)}: stop it first, then rotate the key`,
    );
    return EXIT.failure;
  }
  try {
    const staged = raw.encryptionKey === undefined ? stageKeyFile(config.dataDir, next) : undefined;
    let done;
    try {
      done = await rotateKey(config, secrets, next);
    } catch (e) {
      staged?.discard();
      throw e;
    }
    staged?.replace();
    io.out(
      `Sealed ${String(done.resealed)} mail credential${done.resealed === 1 ? '' : 's'} under the new key; it is ` +
        "now the database's key.",
    );
    if (done.unreadable > 0)
      io.out(
        `${String(done.unreadable)} could not be read with the old key either (sealed under a key lost before) and ` +
          'were left as they were: those inboxes ask to be reconnected.',
      );
    const factors = done.secondFactors;
    if (factors.resealed + factors.unreadable > 0)
      io.out(
        `Sealed ${String(factors.resealed)} two-step sign-in key${factors.resealed === 1 ? '' : 's'} under the new key` +
          (factors.unreadable > 0
            ? `; ${String(factors.unreadable)} could not be read and were left: those people sign in with a recovery code.`
            : '.'),
      );
    io.out(
      staged === undefined
        ? 'Start every instance with ENCRYPTION_KEY set to the new key, and keep it with your backups.'
        : `${keyFile} now holds the new key: start the service, and keep the file with your backups.`,
    );
    io.out('Backups made before now open with the old key only.');
    return EXIT.ok;
  } finally {
    instance?.release();
  }
}
