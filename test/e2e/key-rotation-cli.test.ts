import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WATCH_APPLICATION_NAME } from '../../src/adapters/jobs/pg-inbox-claims.ts';
import { createApp } from '../../src/app.ts';
import { totpCode, totpStep } from '../../src/lib/totp.ts';
import { readConfiguration } from '../../src/config/index.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { buildMessage, freePort, seedMaildir, startDovecot, type Dovecot } from '../rig/index.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { connectImapInbox } from '../support/imap-inbox.ts';
import { runCommand, runService, startService } from '../support/spawn-service.ts';
import { eventually } from '../support/eventually.ts';
import { createTestApp, TEST_KEY } from '../support/test-app.ts';
import { tempDir } from '../support/temp-dir.ts';
import { agentOn, expectToolOk, toolCaller } from '../support/tool-caller.ts';

const USER = 'rotating';
const PASSWORD = 'rotating-secret';
const NEXT = Buffer.alloc(32, 9).toString('base64');

// `inbox-triage key rotate` (decision 0066) as an operator runs it on the SQLite install `npm start` makes: refused
// while the service runs; then the IMAP inbox's password is sealed under the new key, DATA_DIR/encryption.key holds
// it, and the service started again reads the inbox with it.
describe('inbox-triage key rotate', () => {
  let dovecot: Dovecot;
  beforeAll(async () => {
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    await seedMaildir({
      maildir: dovecot.maildirOf(USER),
      messages: [
        {
          raw: buildMessage({
            from: { address: 'kim@example.org' },
            to: [{ address: `${USER}@example.test` }],
            subject: 'Before the rotation',
            date: new Date(Date.UTC(2026, 10, 1)),
            messageId: '<rotation@rig.test>',
            text: 'Hello',
          }),
          flags: [],
          internalDate: new Date(Date.UTC(2026, 10, 1)),
        },
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await dovecot.stop();
  });

  it('re-seals the inbox credentials under the new key and puts it in the key file; never beside a running service', async () => {
    const dataDir = tempDir('rotate-');
    const env = { DATA_DIR: dataDir, IMAP_INSECURE_HOSTS: '127.0.0.1' };
    const keyFile = join(dataDir, 'encryption.key');
    /** The service in this process, on the key the configuration gives now. */
    const open = async () => {
      const { config, secrets } = readConfiguration(env, '/');
      return createApp(config, secrets, { log: silentLogger });
    };
    let app = await open();
    const { key } = await agentOn(app);
    let call = toolCaller(app, key);
    const inboxId = await connectImapInbox(app, call, { dovecot, user: USER, password: PASSWORD });
    // The owner's two-step sign-in key is sealed under the same key, and goes with it (decision 0089).
    const owner = (await app.stores.accounts.list())[0]!;
    const secret = app.services.secondFactor.newSecret();
    const turnedOn = await app.services.secondFactor.enable(
      owner.id,
      secret,
      totpCode(secret, totpStep(new Date())),
      { ip: '127.0.0.1', userAgent: null },
    );
    expect(turnedOn.ok).toBe(true);
    await app.close();
    const oldKey = readFileSync(keyFile, 'utf8');

    const rotate = (more: Record<string, string> = {}) =>
      runCommand({ ...env, NEW_ENCRYPTION_KEY: NEXT, ...more }, 'key', 'rotate');
    const running = await startService(env);
    const refused = await rotate();
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('the service is running');
    expect(readFileSync(keyFile, 'utf8')).toBe(oldKey);
    expect(existsSync(`${keyFile}.next`)).toBe(false);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);

    expect((await rotate({ NEW_ENCRYPTION_KEY: 'too short' })).code).toBe(2);
    const done = await rotate();
    expect(done.err).toBe('');
    expect(done.code).toBe(0);
    expect(done.out).toContain('Sealed 1 mail credential under the new key');
    expect(done.out).toContain('Sealed 1 two-step sign-in key under the new key.');
    expect(done.out).toContain(`${keyFile} now holds the new key`);
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(NEXT);
    expect(existsSync(`${keyFile}.next`)).toBe(false);
    expect((await rotate()).err).toContain('is the current key'); // the file's key is the new one now

    // Started again with the key file as the rotation left it: the inbox's password opens, the mailbox answers.
    app = await open();
    call = toolCaller(app, key);
    try {
      // The two-step key opens under the new key: the next code is taken.
      const next = totpCode(secret, totpStep(new Date()) + 1);
      expect(
        await app.services.secondFactor.check(owner.id, next, { ip: '127.0.0.1', userAgent: null }),
      ).toMatchObject({ ok: true });
      expectToolOk(await call('sync_inbox', { inboxId }));
      const listed = expectToolOk(await call('list_messages', { inboxId, limit: 5 }))['messages'] as {
        subject: string;
      }[];
      expect(listed.map((m) => m.subject)).toEqual(['Before the rotation']);
      const inbox = (
        expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string; connectionStatus: string }[]
      ).find((i) => i.id === inboxId);
      expect(inbox?.connectionStatus).toBe('connected');
    } finally {
      await app.close();
    }
  }, 120_000);

  it('on PostgreSQL with ENCRYPTION_KEY: refused while a node runs; after it, only the new key starts a node', async () => {
    const url = await freshPgDatabase();
    const setup = await createTestApp({ pgUrl: url }); // records TEST_KEY as the database's key
    await setup.close();
    const env = {
      DATABASE_URL: url,
      DATA_DIR: tempDir('rotate-pg-'),
      ENCRYPTION_KEY: TEST_KEY.toString('base64'),
    };
    const rotate = () => runCommand({ ...env, NEW_ENCRYPTION_KEY: NEXT }, 'key', 'rotate');

    const node = await startService(env);
    // A node is seen by its watch session, which its scheduler opens within seconds of the start.
    const watching = new pg.Client({ connectionString: url });
    await watching.connect();
    await eventually(
      "the node's watch session",
      async () =>
        (
          await watching.query<{ n: string }>(
            'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
            [WATCH_APPLICATION_NAME],
          )
        ).rows[0]!.n === '1'
          ? true
          : undefined,
      15_000,
    );
    await watching.end();
    const refused = await rotate();
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('1 Inbox Triage instance is running on this database');
    node.child.kill('SIGTERM');
    expect(await node.exited).toBe(0);

    const done = await rotate();
    expect(done.code).toBe(0);
    expect(done.out).toContain('Start every instance with ENCRYPTION_KEY set to the new key');
    const old = runService(['serve'], { ...env, PORT: String(await freePort()) });
    expect(await old.exited).toBe(2);
    expect(old.stderr()).toContain('is not the key this database was set up with');
    const renewed = await startService({ ...env, ENCRYPTION_KEY: NEXT });
    expect((await fetch(`${renewed.baseUrl}/readyz`)).status).toBe(200);
    renewed.child.kill('SIGTERM');
    expect(await renewed.exited).toBe(0);
  }, 120_000);
});
