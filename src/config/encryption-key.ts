import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
