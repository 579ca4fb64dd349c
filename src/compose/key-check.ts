import { ConfigError } from '../config/index.ts';
import { INSTANCE_SCOPE, KEY_CHECK_SETTING, type SettingsStore } from '../core/settings/settings-store.ts';
import { resealCredentials, type Resealed } from '../adapters/storage/key-rotation.ts';
import type { Db } from '../adapters/storage/index.ts';
import { aead, type Aead } from '../lib/aead.ts';
import { hmacSha256 } from '../lib/secret-token.ts';

/** A value only this key gives, from which the key cannot be found: HMAC-SHA-256 of a fixed text under it. */
export function keyCheck(key: Uint8Array): string {
  return hmacSha256(key, 'inbox-triage encryption key check');
}

/**
 * Every instance on one database must hold the key the database was set up with (decision 0042): it decrypts the
 * stored mail credentials, signs device tokens and derives OAuth refresh answers. The first start records the key's
 * check value; a later start with another key stops here, before it could write anything under the wrong key.
 */
export async function checkEncryptionKey(settings: SettingsStore, key: Uint8Array, now: Date): Promise<void> {
  const mine = keyCheck(key);
  if (await settings.setIfAbsent(INSTANCE_SCOPE, KEY_CHECK_SETTING, mine, now)) return;
  if (!(await recordedKeyDiffers(settings, key))) return;
  throw new ConfigError(
    'ENCRYPTION_KEY (or DATA_DIR/encryption.key when it is not set) is not the key this database was set up with. ' +
      'Every instance on one database needs the same key: set ENCRYPTION_KEY to it. If that key is lost for good, ' +
      'run `inbox-triage key adopt` with this one; stored mail credentials then cannot be read, and each inbox asks ' +
      'to be reconnected.',
  );
}

/** Whether the database recorded another key than `key` (one that recorded none: no). */
export async function recordedKeyDiffers(settings: SettingsStore, key: Uint8Array): Promise<boolean> {
  const recorded = await settings.get(INSTANCE_SCOPE, KEY_CHECK_SETTING);
  return recorded !== undefined && recorded !== keyCheck(key);
}

/** Makes `key` the database's key, after the one it was set up with was lost (`inbox-triage key adopt`). */
export async function adoptEncryptionKey(settings: SettingsStore, key: Uint8Array, now: Date): Promise<void> {
  await settings.set(INSTANCE_SCOPE, KEY_CHECK_SETTING, keyCheck(key), now);
}

/** What seals the stored mail credentials under `key`: a subkey of its own (lib/aead.ts). */
export function credentialSealer(key: Uint8Array): Aead {
  return aead(Buffer.from(key), 'credential');
}

/**
 * Re-seals every stored mail credential from the database's key `from` to `to` and makes `to` the database's key, in
 * one transaction (`inbox-triage key rotate`, decision 0066). Every instance must be stopped: one still running with
 * `from` would go on sealing under it.
 */
export function rotateEncryptionKey(db: Db, from: Uint8Array, to: Uint8Array, now: Date): Promise<Resealed> {
  return resealCredentials(db, {
    from: { credentials: credentialSealer(from), check: keyCheck(from) },
    to: { credentials: credentialSealer(to), check: keyCheck(to) },
    now,
  });
}
