import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { freshPgDatabase } from '../../test/rig/pg.ts';
import { createTestApp, TEST_KEY } from '../../test/support/test-app.ts';
import { WATCH_APPLICATION_NAME } from '../adapters/jobs/pg-inbox-claims.ts';
import { NotTheDatabaseKeyError, ServiceRunningError } from '../adapters/storage/key-rotation.ts';
import { KyselyCredentialVault } from '../adapters/storage/kysely-credential-vault.ts';
import { KyselySecondFactorStore } from '../adapters/storage/kysely-second-factor-store.ts';
import type { App } from '../app.ts';
import { ConfigError } from '../config/index.ts';
import { newInbox, seedAccount } from '../core/inboxes/inbox-store.contract.ts';
import type { InboxId } from '../core/inboxes/inbox.ts';
import type { MailCredential } from '../core/mail/mail-types.ts';
import { checkEncryptionKey, credentialSealer, rotateEncryptionKey } from './key-check.ts';

const NEXT = Buffer.alloc(32, 9);
const LOST = Buffer.alloc(32, 5);

// `inbox-triage key rotate` (decision 0066): the stored mail credentials re-sealed under a new key, which becomes the
// database's key, in one transaction — on both engines, and on PostgreSQL never beside a running node.
describe('rotating the encryption key', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const credential = (n: number): MailCredential => ({
    kind: 'password',
    username: `user${String(n)}@example.test`,
    password: `pässword ${String(n)}`,
  });
  const vaultOf = (a: App, key: Buffer) => new KyselyCredentialVault(a.db, credentialSealer(key));
  const factorsOf = (a: App, key: Buffer) => new KyselySecondFactorStore(a.db, credentialSealer(key));
  /** An inbox of a new account with a credential sealed under `key`. */
  const inboxSealedUnder = async (a: App, key: Buffer, n: number): Promise<InboxId> => {
    const inbox = newInbox(await seedAccount(a.stores.accounts));
    await a.stores.inboxes.create(inbox);
    await vaultOf(a, key).put(inbox.id, credential(n), new Date());
    return inbox.id;
  };

  it.each(['SQLite', 'PostgreSQL'] as const)(
    'on %s: re-seals every credential the old key opens, leaves what it cannot, and moves the key check',
    async (engine) => {
      app = await createTestApp(engine === 'PostgreSQL' ? { pgUrl: await freshPgDatabase() } : {});
      const a = app;
      const sealed = [await inboxSealedUnder(a, TEST_KEY, 1), await inboxSealedUnder(a, TEST_KEY, 2)];
      const lost = await inboxSealedUnder(a, LOST, 3); // sealed under a key lost before
      // A second factor's secret is sealed under the same key (decision 0089), and moves with it.
      const withFactor = await seedAccount(a.stores.accounts);
      await factorsOf(a, TEST_KEY).enable(withFactor, 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', 1, [], new Date());
      const stored = async () =>
        (await a.db.kysely.selectFrom('inbox_credentials').select(['inbox_id', 'sealed']).execute()).sort(
          (x, y) => x.inbox_id.localeCompare(y.inbox_id),
        );
      const before = await stored();

      // Not with a key that is not the database's: nothing changes.
      await expect(rotateEncryptionKey(a.db, LOST, NEXT, new Date())).rejects.toThrow(NotTheDatabaseKeyError);
      expect(await stored()).toEqual(before);
      await checkEncryptionKey(a.stores.settings, TEST_KEY, new Date());

      expect(await rotateEncryptionKey(a.db, TEST_KEY, NEXT, new Date())).toEqual({
        resealed: 2,
        unreadable: 1,
        secondFactors: { resealed: 1, unreadable: 0 },
      });
      expect((await factorsOf(a, NEXT).get(withFactor))?.secret).toBe('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
      expect((await factorsOf(a, TEST_KEY).get(withFactor))?.secret).toBeNull();
      for (const [i, id] of sealed.entries()) {
        expect(await vaultOf(a, NEXT).get(id)).toEqual(credential(i + 1));
        expect(await vaultOf(a, TEST_KEY).get(id)).toBeUndefined();
      }
      const after = await stored();
      expect(after.find((r) => r.inbox_id === lost)).toEqual(before.find((r) => r.inbox_id === lost));
      await checkEncryptionKey(a.stores.settings, NEXT, new Date());
      await expect(checkEncryptionKey(a.stores.settings, TEST_KEY, new Date())).rejects.toThrow(ConfigError);
    },
  );

  it('on PostgreSQL: refused while a node is running; a node starting meanwhile waits, then finds the new key', async () => {
    const url = await freshPgDatabase();
    app = await createTestApp({ pgUrl: url });
    const a = app;
    const id = await inboxSealedUnder(a, TEST_KEY, 1);

    // A node's watch session, as every running node keeps one: the rotation refuses, and nothing changes.
    const watch = new pg.Client({ connectionString: url, application_name: WATCH_APPLICATION_NAME });
    await watch.connect();
    await expect(rotateEncryptionKey(a.db, TEST_KEY, NEXT, new Date())).rejects.toThrow(ServiceRunningError);
    await watch.end();
    expect(await vaultOf(a, TEST_KEY).get(id)).toEqual(credential(1));
    await checkEncryptionKey(a.stores.settings, TEST_KEY, new Date());

    // The rotation held after it changed the key check (a session holds the credential's row), and a node with the
    // old key starting meanwhile: its key check waits for the rotation, then refuses.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM inbox_credentials WHERE inbox_id = $1 FOR UPDATE', [id]);
    const rotation = rotateEncryptionKey(a.db, TEST_KEY, NEXT, new Date());
    await new Promise((r) => setTimeout(r, 300));
    const starting = checkEncryptionKey(a.stores.settings, TEST_KEY, new Date()).then(
      () => 'started',
      (e: unknown) => (e instanceof ConfigError ? 'refused' : String(e)),
    );
    await new Promise((r) => setTimeout(r, 300));
    await holder.query('COMMIT');
    await holder.end();
    expect(await rotation).toEqual({
      resealed: 1,
      unreadable: 0,
      secondFactors: { resealed: 0, unreadable: 0 },
    });
    expect(await starting).toBe('refused');
    expect(await vaultOf(a, NEXT).get(id)).toEqual(credential(1));
  });
});
