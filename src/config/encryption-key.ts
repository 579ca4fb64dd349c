import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config-error.ts';

export const KEY_FILE_NAME = 'encryption.key';

/**
 * The key that encrypts provider credentials. A configured ENCRYPTION_KEY wins; otherwise a key is generated
 * once into the data directory with mode 0600 and reused on every later start. Losing it makes stored
 * credentials unreadable (inboxes then need reconnecting), so it is never regenerated over an existing file.
 */
export function resolveEncryptionKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured !== undefined) return Buffer.from(configured, 'base64');
  const path = join(dataDir, KEY_FILE_NAME);
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length !== 32)
      throw new ConfigError(`${path}: expected 32 bytes in base64; restore it from backup`);
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    return key;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  // 'wx' fails if another process created it first; then read theirs so both agree.
  try {
    writeFileSync(path, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return resolveEncryptionKey(undefined, dataDir);
    throw new ConfigError(`DATA_DIR: cannot write ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return key;
}

/** A new key written beside the key file, to take its place once the database is re-sealed under it. */
export interface StagedKeyFile {
  /** Where the new key waits: if the process stops between the database's commit and `replace`, it is there. */
  readonly path: string;
  /** Puts the new key in place of the old one (a rename: the file is whole, old or new, at every moment). */
  replace(): void;
  discard(): void;
}

/** Writes `key` to `DATA_DIR/encryption.key.next` (mode 0600) for `inbox-triage key rotate` (decision 0066). */
export function stageKeyFile(dataDir: string, key: Buffer): StagedKeyFile {
  const current = join(dataDir, KEY_FILE_NAME);
  const path = `${current}.next`;
  writeFileSync(path, key.toString('base64') + '\n', { mode: 0o600 });
  chmodSync(path, 0o600); // a file left from an earlier try keeps its mode otherwise
  return {
    path,
    replace: () => {
      renameSync(path, current);
    },
    discard: () => {
      rmSync(path, { force: true });
    },
  };
}
