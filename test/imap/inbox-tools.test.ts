import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/transports/http/serve.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import {
  artifactPath,
  freePort,
  generateMessages,
  launchBrowser,
  seedMaildir,
  startDovecot,
  type Dovecot,
  type GeneratedMessage,
} from '../rig/index.ts';
import { imapClient } from '../support/imap-inbox.ts';
import { createTestApp } from '../support/test-app.ts';
import { ImapConnector } from '../../src/adapters/mail/imap/imap-connector.ts';
import { agentOn, type toolCaller } from '../support/tool-caller.ts';
import type { App } from '../../src/app.ts';
import type { AccountId } from '../../src/core/accounts/account.ts';

// Issue 6 end to end: a real IMAP server (Dovecot), the capture form in a real browser, and every read tool.
describe('an IMAP inbox, from connecting to reading', () => {
  let dovecot: Dovecot;
  let browser: Browser;
  let app: App;
  let server: RunningServer;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;
  let messages: GeneratedMessage[];
  const USER = 'alice';
  const PASSWORD = 'correct-imap-password';

  beforeAll(async () => {
    [dovecot, browser] = await Promise.all([startDovecot({ users: { [USER]: PASSWORD } }), launchBrowser()]);
    messages = generateMessages(10_500, { seed: 6 });
    await seedMaildir({ maildir: dovecot.maildirOf(USER), messages });
    const port = await freePort();
    app = await createTestApp({
      config: {
        baseUrl: `http://127.0.0.1:${String(port)}`,
        mcpAllowedOrigins: [`http://127.0.0.1:${String(port)}`],
        syncWindow: 10_000,
      },
      // The last case changes the password at Dovecot, which keeps the sessions logged in before: logins are
      // reused for a second at most here (a minute in production; connection-reuse.test.ts), so it is noticed.
      overrides: { imapConnector: new ImapConnector({ insecureHosts: ['127.0.0.1'], maxLoginAgeMs: 1000 }) },
    });
    server = await listen(app.fetch, { host: '127.0.0.1', port, log: silentLogger });
    ({ call } = await agentOn(app));
  }, 180_000);

  afterAll(async () => {
    await browser.close();
    await server.close(1000);
    await app.close();
    await dovecot.stop();
  });

  const client = () => imapClient(dovecot, USER, PASSWORD);

  it('proposes, adds, and refuses what it must', async () => {
    expect((await call('propose_connection', { email: 'me@gmail.com' })).body).toMatchObject({
      provider: 'google',
    });
    expect((await call('propose_connection', { email: 'me@hotmail.co.uk' })).body).toMatchObject({
      provider: 'microsoft',
    });
    expect((await call('propose_connection', { email: 'me@icloud.com' })).body).toMatchObject({
      provider: 'icloud',
      imapHost: 'imap.mail.me.com',
    });
    expect((await call('propose_connection', { email: 'me@example.org' })).body).toMatchObject({
      provider: 'imap',
      imapHost: 'imap.example.org',
      imapPort: 993,
    });
    expect(
      (await call('add_inbox', { label: 'x', provider: 'imap', email: 'a@example.org' })).body,
    ).toMatchObject({ error: 'invalid_arguments' });
    expect(
      (
        await call('add_inbox', {
          label: 'x',
          provider: 'imap',
          email: 'a@example.org',
          imapHost: 'bad host!',
        })
      ).body,
    ).toMatchObject({ error: 'invalid_arguments' });
    const g = await call('add_inbox', { label: 'Gmail', provider: 'google', email: 'a@gmail.com' });
    const gid = (g.body['inbox'] as { id: string }).id;
    expect((await call('start_google_oauth', { inboxId: gid })).body).toMatchObject({
      error: 'not_supported',
    });
    expect((await call('start_imap_secret_capture', { inboxId: gid })).body).toMatchObject({
      error: 'not_supported',
    });
    expect((await call('list_messages', { inboxId: gid })).body).toMatchObject({ error: 'not_connected' });
    // Asked again (an agent retrying, or asking twice): the same inbox, not a second one syncing the same mail.
    const again = await call('add_inbox', { label: 'Gmail again', provider: 'google', email: 'A@Gmail.com' });
    expect(again.body).toMatchObject({ inbox: { id: gid, label: 'Gmail' }, alreadyAdded: true });
    expect(again.body['agentOnly']).toEqual([
      `Nothing was added. It is not connected: Call start_google_oauth with inboxId ${gid} and give the person the link it returns.`,
    ]);
    const inboxes = (await call('list_inboxes')).body['inboxes'] as { email: string }[];
    expect(inboxes.filter((i) => i.email === 'a@gmail.com')).toHaveLength(1);
  });

  it('connects through the password form in a browser: a wrong password is explained, the right one saved', async () => {
    const added = await call('add_inbox', {
      label: 'Work',
      provider: 'imap',
      email: 'alice@example.test',
      imapHost: '127.0.0.1',
      imapPort: dovecot.port,
      imapUser: USER,
    });
    inboxId = (added.body['inbox'] as { id: string }).id;
    expect(added.body['inbox']).toMatchObject({ connectionStatus: 'not_connected', imapPort: dovecot.port });
    const link = (await call('start_imap_secret_capture', { inboxId })).body['url'] as string;
    expect(link).toMatch(/\/connect\/imap\?token=cap_[a-z0-9]{40}$/);

    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(link);
    expect(await page.getAttribute('#password', 'type')).toBe('password');
    await page.fill('#password', 'wrong-password');
    await page.click('button[type=submit]');
    // Dovecot delays the login after a failed one (its auth penalty, ~4 s), and the first sync starts right after
    // the form succeeds: give the page as long as Playwright's own waits rather than expect.poll's 1 s.
    await expect
      .poll(() => page.textContent('main'), { timeout: 15_000 })
      .toContain('refused this user name and password');
    await page.fill('#password', PASSWORD);
    await page.screenshot({ path: artifactPath('imap-capture-form.png'), fullPage: true });
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('main'), { timeout: 15_000 }).toContain('is connected');
    await page.goto(link);
    expect(await page.textContent('main')).toContain('expired or was used'); // single use
    await page.close();

    expect((await call('get_connection_status', { inboxId })).body).toMatchObject({
      connectionStatus: 'connected',
      needsReconnect: false,
      canSyncNow: true,
    });
    // The same mailbox added again answers with this inbox, connected; another login at that server is another one.
    const same = {
      label: 'Work again',
      provider: 'imap',
      email: 'alice@example.test',
      imapHost: '127.0.0.1',
      imapPort: dovecot.port,
      imapUser: USER,
    };
    const again = await call('add_inbox', same);
    expect(again.body).toMatchObject({
      inbox: { id: inboxId, label: 'Work', connectionStatus: 'connected' },
      alreadyAdded: true,
      sayToHuman: '“Work” (alice@example.test) was already added and is connected.',
      agentOnly: [`Nothing was added: use inboxId ${inboxId}.`],
    });
    const otherLogin = await call('add_inbox', { ...same, imapUser: 'alice-shared' });
    expect(otherLogin.body['alreadyAdded']).toBeUndefined();
    expect((otherLogin.body['inbox'] as { id: string }).id).not.toBe(inboxId);
    const { account_id } = await app.db.kysely
      .selectFrom('inboxes')
      .select('account_id')
      .where('id', '=', inboxId)
      .executeTakeFirstOrThrow();
    // As the person would from the Inboxes page: the other login is not part of what follows.
    await app.services.tools.inboxes.remove(
      account_id as AccountId,
      (otherLogin.body['inbox'] as { id: string }).id,
    );
    // The password never passed through MCP, and is not stored in clear.
    const row = await app.db.kysely.selectFrom('inbox_credentials').selectAll().executeTakeFirstOrThrow();
    expect(row.sealed).not.toContain(PASSWORD);
  });

  it('syncs and pages through 10,000 messages with no gaps or duplicates', async () => {
    const sync = await call('sync_inbox', { inboxId });
    expect(sync.isError).toBe(false);
    const seen = new Set<string>();
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const r = await call('list_messages', { inboxId, limit: 200, offset });
      for (const m of r.body['messages'] as { messageId: string }[]) seen.add(m.messageId);
      offset = r.body['nextOffset'] as number | null;
      pages++;
    }
    // 50 pages of 200, or more when a page is shortened to fit one result (page-fit.ts): never a gap.
    expect(pages).toBeGreaterThanOrEqual(50);
    expect(seen.size).toBe(10_000);
  }, 120_000);

  it('reads non-ASCII subjects decoded and searches the whole mailbox at the provider', async () => {
    const target = messages.find((m, i) => i < 400 && /[^\x00-\x7f]/.test(m.subject))!; // older than the window
    const r = await call('search_mailbox', { inboxId, query: target.subject.slice(0, 30) });
    const hits = r.body['messages'] as { subject: string; messageId: string }[];
    expect(hits.map((h) => h.subject)).toContain(target.subject);
    const full = await call('get_message', {
      inboxId,
      messageId: hits.find((h) => h.subject === target.subject)!.messageId,
    });
    expect(full.body['subject']).toBe(target.subject);
    expect(full.body['bodyUntrusted']).toMatch(/^The text between the markers/);
  });

  it('loads older messages past the window', async () => {
    const r = await call('load_older_messages', { inboxId, folder: 'inbox', count: 201 });
    expect(r.body['loadedCount']).toBe(200);
    expect((r.body['loaded'] as unknown[]).length).toBeGreaterThan(0);
    expect(r.body['moreAvailable']).toBe(true);
  });

  it('downloads an attachment byte for byte', async () => {
    const withFile = messages.slice(-200).find((m) => m.attachments.length > 0)!;
    const hit = await call('search_mailbox', { inboxId, query: withFile.subject.slice(0, 40) });
    const id = (hit.body['messages'] as { subject: string; messageId: string }[]).find(
      (m) => m.subject === withFile.subject,
    )!.messageId;
    const msg = await call('get_message', { inboxId, messageId: id });
    const parts = msg.body['attachments'] as { partId: string; filename: string }[];
    const part = parts.find((p) => p.filename === withFile.attachments[0]!.filename)!;
    const link = await call('get_attachment', { inboxId, messageId: id, partId: part.partId });
    const res = await fetch(link.body['url'] as string);
    expect(Buffer.from(await res.arrayBuffer()).equals(withFile.attachments[0]!.content)).toBe(true);
  });

  it('sees flags and moves made by another IMAP client after a sync', async () => {
    const newest = (await call('list_messages', { inboxId, limit: 3 })).body['messages'] as {
      messageId: string;
      subject: string;
      starred: boolean;
    }[];
    const c = await client();
    const lock = await c.getMailboxLock('INBOX');
    try {
      const status = await c.status('INBOX', { uidNext: true });
      const top = (status === false ? 1 : (status.uidNext ?? 1)) - 1;
      await c.messageFlagsAdd(String(top), ['\\Flagged', 'Project-X'], { uid: true });
      await c.messageMove(String(top - 1), 'Archive', { uid: true });
    } finally {
      lock.release();
      await c.logout();
    }
    await call('sync_inbox', { inboxId });
    const after = (await call('list_messages', { inboxId, limit: 3 })).body['messages'] as {
      messageId: string;
      starred: boolean;
      labels: string[];
    }[];
    expect(after[0]).toMatchObject({ messageId: newest[0]!.messageId, starred: true, labels: ['Project-X'] });
    expect(after.map((m) => m.messageId)).not.toContain(newest[1]!.messageId);
    expect((await call('list_labels', { inboxId })).body['labels']).toEqual(
      expect.arrayContaining([{ id: 'Project-X', name: 'Project-X' }]),
    );
  });

  it('recovers from a UIDVALIDITY change silently', async () => {
    expect((await call('sync_inbox', { inboxId, folders: ['inbox', 'archive'] })).isError).toBe(false);
    const before = (await call('list_messages', { inboxId, folder: 'archive' })).body['total'] as number;
    expect(before).toBeGreaterThan(0);
    const c = await client();
    await c.mailboxDelete('Archive');
    await c.mailboxCreate('Archive');
    await c.append('Archive', messages[0]!.raw, ['\\Seen']);
    await c.logout();
    const sync = await call('sync_inbox', { inboxId });
    expect(sync.isError).toBe(false);
    const archive = (await call('list_messages', { inboxId, folder: 'archive' })).body;
    expect(archive['total']).toBe(1);
    expect((archive['messages'] as { subject: string }[])[0]!.subject).toBe(messages[0]!.subject);
  });

  it('notices new mail by IDLE without a sync call', async () => {
    app.startBackground();
    await new Promise((r) => setTimeout(r, 1500)); // the first tick starts the watcher
    const fresh = generateMessages(1, { seed: 99, startDate: new Date() })[0]!;
    const c = await client();
    await c.append('INBOX', fresh.raw, []);
    await c.logout();
    await expect
      .poll(
        async () =>
          ((await call('list_messages', { inboxId, limit: 1 })).body['messages'] as { subject: string }[])[0]
            ?.subject,
        { timeout: 10_000, interval: 200 },
      )
      .toBe(fresh.subject);
  }, 30_000);

  it('a password that stops working turns into needsReconnect with a clear status', async () => {
    await dovecot.addUser(USER, 'changed-elsewhere');
    await new Promise((r) => setTimeout(r, 1200)); // Dovecot re-reads passwd files at most once a second
    // The server ends the logins it has (a kept one would otherwise serve the next minute, connection-pool.ts).
    await dovecot.kick(USER);
    // Noticed by whatever meets the refusal first — here an action, which used to answer only provider_error and
    // leave the inbox looking connected until the next sync (RefusalMarkingSessions).
    const first = (
      (await call('list_messages', { inboxId, limit: 1 })).body['messages'] as { messageId: string }[]
    )[0];
    const act = await call('act_on_messages', {
      action: 'star',
      items: [{ inboxId, messageId: first!.messageId }],
    });
    expect(act.isError, JSON.stringify(act.body)).toBe(true);
    expect((await call('get_connection_status', { inboxId })).body).toMatchObject({
      connectionStatus: 'needs_reconnect',
    });
    const r = await call('sync_inbox', { inboxId });
    expect(r.body).toMatchObject({ error: 'needs_reconnect' });
    const status = await call('get_connection_status', { inboxId });
    expect(status.body).toMatchObject({ connectionStatus: 'needs_reconnect', needsReconnect: true });
    expect(typeof status.body['lastError']).toBe('string');
    expect((await call('list_messages', { inboxId })).body).toMatchObject({ error: 'needs_reconnect' });
  }, 30_000);
});
