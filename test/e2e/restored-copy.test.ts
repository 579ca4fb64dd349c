import { execFile } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { backupSqlite } from '../../src/adapters/storage/sqlite/backup.ts';
import type { App } from '../../src/app.ts';
import type { Config } from '../../src/config/index.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { markAsCopy, takeUpRestoredCopy } from '../../src/adapters/storage/index.ts';
import { oauthAccessToken } from '../support/oauth-code.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { sendingInbox, type SendingInbox } from '../support/sending-inbox.ts';
import { runCommand } from '../support/spawn-service.ts';
import { createTestApp, TEST_KEY } from '../support/test-app.ts';
import { tempDir } from '../support/temp-dir.ts';
import {
  agentOn,
  expectToolError,
  expectToolOk,
  firstAttachmentLink,
  toolCaller,
  toolsListStatus,
} from '../support/tool-caller.ts';
import { invitedAccount, OWNER, WebClient } from '../support/web-client.ts';

const execFileAsync = promisify(execFile);
const PG_BIN = '/usr/lib/postgresql/15/bin';

// A database restored from a copy (decision 0137) holds as still open what may have been used after the copy was
// made: a send the person approved since would be approvable, and sent, again. Shown with a real SMTP server on
// SQLite (the copy made by `inbox-triage backup`), and on PostgreSQL with pg_dump, pg_restore and `after-restore`.
describe('a database restored from a copy', () => {
  const open: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const o of open.reverse()) await o.close();
  });

  /** The app again on the same configuration, as a restart finds it; its log recorded. */
  const restart = async (config: Config, pgUrl?: string) => {
    const rec = recordingLogger();
    const again = await createTestApp({
      config: { dataDir: config.dataDir, database: config.database, baseUrl: config.baseUrl },
      ...(pgUrl !== undefined && { pgUrl }),
      overrides: { log: rec.log },
    });
    open.push(again);
    return { app: again, lines: rec.lines };
  };
  const status = async (app: App, web: WebClient, path: string) => {
    const moved = new WebClient(app);
    for (const [k, v] of web.cookies) moved.cookies.set(k, v);
    return (await moved.get(path)).status;
  };
  const sendWith = (call: ReturnType<typeof toolCaller>, d: Record<string, unknown>) =>
    call('send_draft', {
      pendingSendId: d['pendingSendId'],
      approvalCode: d['approvalCode'],
      humanApprovedInChat: true,
    });
  const mcpStatus = (app: App, token: string) => toolsListStatus(app.fetch, app.config.baseUrl, token);

  it('SQLite: a send approved after the backup is not sent again, and what ended since stays ended', async () => {
    const s: SendingInbox = await sendingInbox('restore', 'restore-pw');
    let closed = false;
    open.push({ close: () => (closed ? Promise.resolve() : s.close()) });
    const token = await oauthAccessToken(s.app, s.web, 'Desk agent');
    const sentAfter = await s.draft('Sent after the copy');
    const neverApproved = await s.draft('Still waiting');

    const path = (s.app.config.database as { path: string }).path;
    const copy = join(tempDir('restore-copy-'), 'triage.db');
    await backupSqlite(path, copy);

    expectToolOk(await s.send(sentAfter));
    await s.sink.waitFor(1);

    // The database the copy was made of is no copy: started again, it withdraws nothing.
    await s.app.close();
    closed = true;
    const same = await restart(s.app.config);
    expect(await status(same.app, s.web, '/settings')).toBe(200);
    expect(await mcpStatus(same.app, token)).toBe(200);
    expect(same.lines.join('\n')).not.toContain('restored');
    await same.app.close();

    // Restored as the README says: the copy in place of the database, its -wal and -shm gone.
    rmSync(`${path}-wal`, { force: true });
    rmSync(`${path}-shm`, { force: true });
    copyFileSync(copy, path);
    const restored = await restart(s.app.config);
    const call = toolCaller(restored.app, s.key);
    const again = expectToolError(await sendWith(call, sentAfter), 'approval_used');
    expect(again['message']).toMatch(
      /^Whether this draft went out is not known \(restored from a copy of the database made at 20/,
    );
    expectToolError(await sendWith(call, neverApproved), 'approval_used');
    expect(s.sink.received).toHaveLength(1);

    expect(await status(restored.app, s.web, '/settings')).toBe(303);
    expect(await mcpStatus(restored.app, token)).toBe(401);
    expectToolOk(await call('list_inboxes'));
    const warning = restored.lines.find((l) => l.includes('this database is restored from a copy made at'));
    expect(warning).toContain('2 sends and 0 unsubscribe requests');
    expect(warning).toContain('1 browser session and 1 agent sign-in ended');

    // Signed in again, the person is told what to repeat.
    const web = new WebClient(restored.app);
    await web.get('/signin');
    await web.post('/signin', { email: OWNER.email, password: OWNER.password });
    await web.get('/settings');
    expect(web.lastHtml).toContain('data-restored');
    expect(web.lastHtml).toMatch(/restored from a copy of its data made\s+on <time/);
    // Someone whose account was made since has nothing to repeat.
    const newcomer = await invitedAccount(restored.app, 'newcomer@example.test');
    await newcomer.get('/settings');
    expect(newcomer.lastHtml).toContain('Signed in as');
    expect(newcomer.lastHtml).not.toContain('data-restored');

    // Taken up once: the next start withdraws nothing more, and the notice stays.
    await restored.app.close();
    const later = await restart(s.app.config);
    expect(later.lines.join('\n')).not.toContain('restored');
    expect(await status(later.app, web, '/settings')).toBe(200);
    await later.app.close();
    await Promise.all([s.sink.stop(), s.dovecot.stop()]);
  }, 60_000);

  it('PostgreSQL: after pg_restore, `after-restore` withdraws the same, once', async () => {
    const pgUrl = await freshPgDatabase();
    const app = await createTestApp({ pgUrl });
    const { web, key, call } = await agentOn(app);
    const inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    const offered = expectToolOk(
      await call('create_draft', { inboxId, to: 'sam@example.test', subject: 'Friday', text: 'See you.' }),
    );
    const dump = join(tempDir('restore-dump-'), 'triage.dump');
    await execFileAsync(`${PG_BIN}/pg_dump`, ['--format=custom', '--file', dump, pgUrl]);
    const send = {
      pendingSendId: offered['pendingSendId'],
      approvalCode: offered['approvalCode'],
      humanApprovedInChat: true,
    };
    expectToolOk(await call('send_draft', send));
    await app.close();

    const restoredUrl = await freshPgDatabase();
    await execFileAsync(`${PG_BIN}/pg_restore`, ['--no-owner', '--dbname', restoredUrl, dump]);
    const env = {
      DATA_DIR: app.config.dataDir,
      DATABASE_URL: restoredUrl,
      ENCRYPTION_KEY: TEST_KEY.toString('base64'),
    };
    const bad = await runCommand(env, 'after-restore', 'yesterday');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('is not a time such as 2026-11-30T02:00:00Z');
    const done = await runCommand(env, 'after-restore', '2026-11-30T02:00:00Z');
    expect(done.err).toBe('');
    expect(done.code).toBe(0);
    expect(done.out).toContain(
      'Done: this database is restored from a copy made at 2026-11-30T02:00:00.000Z: 1 send and 0 unsubscribe requests',
    );

    const restored = await restart(app.config, restoredUrl);
    expect(restored.lines.join('\n')).not.toContain('restored');
    const refused = expectToolError(await toolCaller(restored.app, key)('send_draft', send), 'approval_used');
    expect(refused['message']).toContain('made at 2026-11-30T02:00:00.000Z');
    expect(await status(restored.app, web, '/settings')).toBe(303);
  }, 60_000);

  for (const engine of ['sqlite', 'postgres'] as const)
    it(`${engine}: withdraws only what is still open, and one of two nodes starting together does it`, async () => {
      const pgUrl = engine === 'postgres' ? await freshPgDatabase() : undefined;
      const app = await createTestApp(pgUrl === undefined ? {} : { pgUrl });
      open.push(app);
      const { key, call } = await agentOn(app);
      const accountId = (await app.stores.accounts.findByEmail(OWNER.email))!.id;
      const inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
      expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
      const draft = (subject: string) =>
        call('create_draft', { inboxId, to: 'sam@example.test', subject, text: 'See you.' }).then(
          expectToolOk,
        );
      const sent = await draft('Sent before the copy');
      expectToolOk(await sendWith(call, sent));
      const waiting = await draft('Waiting');
      expectToolOk(await call('sync_inbox', { inboxId }));
      const lists = expectToolOk(await call('review_unsubscribes', { inbox: inboxId, limit: 100 }))[
        'senders'
      ] as {
        messageId: string;
        oneClickAdvertised: boolean;
      }[];
      const proposed = expectToolOk(
        await call('propose_unsubscribe', {
          inboxId,
          messageId: lists.find((r) => r.oneClickAdvertised)!.messageId,
        }),
      );
      const download = await firstAttachmentLink(call, inboxId);
      const added = expectToolOk(
        await call('add_inbox', {
          label: 'Other',
          provider: 'imap',
          email: 'other@example.test',
          imapHost: 'mail.example.test',
        }),
      );
      const capture = expectToolOk(
        await call('start_imap_secret_capture', { inboxId: (added['inbox'] as { id: string }).id }),
      )['url'] as string;
      const get = (url: string) => app.fetch(new Request(url));
      expect((await get(download)).status).toBe(200);
      const sentBefore = await app.stores.pendingSends.get(accountId, String(sent['pendingSendId']));
      expect(sentBefore?.status).toBe('sent');

      // The database as a copy found it (the row `backup` writes into its copy), then two nodes starting at once.
      await markAsCopy(app.db, new Date('2026-11-30T02:00:00Z'), new Date());
      const [mine, node] = await Promise.all([
        takeUpRestoredCopy(app.db, new Date()),
        pgUrl === undefined ? undefined : restart(app.config, pgUrl),
      ]);
      const nodeTookUp = node?.lines.some((l) => l.includes('this database is restored')) === true;
      expect([mine !== undefined, nodeTookUp].filter(Boolean)).toHaveLength(1);
      expect(await takeUpRestoredCopy(app.db, new Date())).toBeUndefined();

      expect(await app.stores.pendingSends.get(accountId, String(sent['pendingSendId']))).toEqual(sentBefore);
      expect(await app.stores.pendingSends.get(accountId, String(waiting['pendingSendId']))).toMatchObject({
        status: 'unknown',
      });
      expect(
        await app.stores.pendingUnsubscribes.get(accountId, String(proposed['pendingUnsubscribeId'])),
      ).toMatchObject({
        status: 'unknown',
        error: expect.stringContaining('made at 2026-11-30T02:00:00.000Z'),
      });
      expectToolError(
        await call('confirm_unsubscribe', {
          pendingUnsubscribeId: proposed['pendingUnsubscribeId'],
          approvalCode: proposed['approvalCode'],
          humanApprovedInChat: true,
        }),
        'approval_used',
      );
      expect((await get(download)).status).not.toBe(200);
      expect(await (await get(capture)).text()).toContain('expired or was used');
      expectToolOk(await toolCaller(app, key)('list_inboxes'));
    });
});
