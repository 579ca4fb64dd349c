import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../app.ts';
import { ConfigError } from '../config/index.ts';
import { silentLogger } from '../lib/logger.ts';
import { createTestApp, TEST_KEY } from '../../test/support/test-app.ts';
import { adoptEncryptionKey, checkEncryptionKey, keyCheck } from './key-check.ts';

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('the encryption key a database was set up with (decision 0042)', () => {
  const other = Buffer.alloc(32, 2);

  it('is recorded by the first start, as a check value that is not the key', async () => {
    app = await createTestApp();
    const recorded = await app.stores.settings.get('instance', 'encryption_key_check');
    expect(recorded).toBe(keyCheck(TEST_KEY));
    expect(recorded).not.toContain(TEST_KEY.toString('base64'));
    expect(keyCheck(other)).not.toBe(recorded);
    await checkEncryptionKey(app.stores.settings, TEST_KEY, new Date());
  });

  it('stops a start with another key before it writes anything, until that key is adopted', async () => {
    app = await createTestApp();
    const { config } = app;
    await app.close();
    app = undefined;
    await expect(createApp(config, { encryptionKey: other }, { log: silentLogger })).rejects.toThrow(
      ConfigError,
    );
    // The refused start left the database as it was: the first key still opens it.
    app = await createApp(config, { encryptionKey: TEST_KEY }, { log: silentLogger });
    await adoptEncryptionKey(app.stores.settings, other, new Date());
    await expect(checkEncryptionKey(app.stores.settings, TEST_KEY, new Date())).rejects.toThrow(
      /not the key this database was set up with/,
    );
    await checkEncryptionKey(app.stores.settings, other, new Date());
  });

  it('is recorded once when several instances start at once with the same key', async () => {
    app = await createTestApp();
    await app.stores.settings.delete('instance', 'encryption_key_check');
    await Promise.all(
      Array.from({ length: 6 }, () => checkEncryptionKey(app!.stores.settings, TEST_KEY, new Date())),
    );
    const results = await Promise.allSettled(
      [other, TEST_KEY].map((k) => checkEncryptionKey(app!.stores.settings, k, new Date())),
    );
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
  });
});
