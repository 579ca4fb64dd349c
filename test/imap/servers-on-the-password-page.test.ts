import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import type { AccountId } from '../../src/core/accounts/account.ts';
import { freePort, startDovecot, startSmtpSink, type Dovecot, type SmtpSink } from '../rig/index.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolError, expectToolOk, type toolCaller } from '../support/tool-caller.ts';
import { WebClient } from '../support/web-client.ts';
import { wholeAccount } from '../../src/core/auth/inbox-reach.ts';

// Decision 0095. The password page named one server, the IMAP one; the password also goes to the submission server
// an agent chose with add_inbox (smtpHost), at the first send the person approves — a server the page never showed,
// that nobody tested until then, and that nobody could change: a wrong guess meant removing the inbox. Now the page
// names both, tests the password at both, and lets the account's owner, signed in, change them (tested with the
// password); a visitor holding only the link — which an agent handed over — cannot.
const flat = (s: string) => s.replace(/\s+/g, ' ');

describe('the servers a password goes to, on the password page', () => {
  let dovecot: Dovecot;
  let sink: SmtpSink;
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let owner: WebClient;
  let closedPort: number;

  beforeAll(async () => {
    const users = { vera: 'vera-pw', wes: 'wes-pw', xia: 'xia-pw' };
    [dovecot, sink] = await Promise.all([startDovecot({ users }), startSmtpSink({ users })]);
    closedPort = await freePort();
    app = await createTestApp();
    ({ call, web: owner } = await agentOn(app));
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await Promise.all([dovecot.stop(), sink.stop()]);
  });

  /** An inbox as an agent adds it, and its password link as a path. */
  const added = async (user: string, servers: Record<string, unknown>) => {
    const inbox = expectToolOk(
      await call('add_inbox', {
        label: user,
        provider: 'imap',
        email: `${user}@example.test`,
        imapUser: user,
        ...servers,
      }),
    )['inbox'] as { id: string };
    const link = new URL(
      expectToolOk(await call('start_imap_secret_capture', { inboxId: inbox.id }))['url'] as string,
    );
    return { id: inbox.id, path: link.pathname + link.search, token: link.searchParams.get('token') ?? '' };
  };
  const stored = async (id: string) => {
    const accountId = (await app.stores.accounts.findByEmail('owner@example.test'))?.id as AccountId;
    const found = await app.services.tools.inboxes.owned(wholeAccount(accountId), id);
    if (!found.ok) throw new Error('no such inbox');
    return found.value;
  };

  it('names both servers to a visitor with the link, tests the password at both, and takes no servers from them', async () => {
    const vera = await added('vera', {
      imapHost: '127.0.0.1',
      imapPort: dovecot.port,
      smtpHost: '127.0.0.1',
      smtpPort: sink.port,
    });
    const visitor = new WebClient(app);
    await visitor.get(vera.path);
    expect(flat(visitor.lastHtml)).toContain(
      `It is used with two servers: <strong>127.0.0.1:${String(dovecot.port)}</strong> to read your mail, and <strong>127.0.0.1:${String(sink.port)}</strong> to send the mail you approve.`,
    );
    expect(visitor.lastHtml).not.toContain('name="smtpHost"');
    const logins = sink.received.length;
    const res = await visitor.post('/connect/imap', {
      token: vera.token,
      username: '',
      password: 'vera-pw',
      imapHost: 'mail.elsewhere.test',
      smtpHost: 'smtp.elsewhere.test',
      smtpPort: '25',
    });
    expect(res.status).toBe(200);
    expect(flat(visitor.lastHtml)).toContain('vera@example.test is connected');
    expect(visitor.lastHtml).not.toContain('Sending will not work');
    expect(sink.received.length).toBe(logins); // a login, nothing sent
    expect(await stored(vera.id)).toMatchObject({
      imapHost: '127.0.0.1',
      imapPort: dovecot.port,
      smtpHost: '127.0.0.1',
      smtpPort: sink.port,
      connectionStatus: 'connected',
    });
  });

  it('says at once when sending would fail; the owner changes the outgoing server from the Inboxes page', async () => {
    const wes = await added('wes', {
      imapHost: '127.0.0.1',
      imapPort: dovecot.port,
      smtpHost: '127.0.0.1',
      smtpPort: closedPort,
    });
    const visitor = new WebClient(app);
    await visitor.get(wes.path);
    await visitor.post('/connect/imap', { token: wes.token, username: '', password: 'wes-pw' });
    expect(flat(visitor.lastHtml)).toContain('Your mail can be read');
    expect(flat(visitor.lastHtml)).toContain(
      `Sending will not work yet: at 127.0.0.1:${String(closedPort)},`,
    );
    expect(await stored(wes.id)).toMatchObject({ connectionStatus: 'connected' });
    // A send the person approved meanwhile fails in words that say where the fix is; the approval is kept.
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    const draft = expectToolOk(
      await call('create_draft', {
        inboxId: wes.id,
        to: 'friend@example.org',
        subject: 'Hi',
        text: 'Hello.',
      }),
    );
    const send = () =>
      call('send_draft', {
        pendingSendId: draft['pendingSendId'],
        approvalCode: draft['approvalCode'],
        humanApprovedInChat: true,
      });
    const failed = expectToolError(await send(), 'provider_error');
    expect(failed['message']).toContain(
      'If the outgoing mail server is wrong, the account’s owner changes it on the Inboxes page (Change password or servers).',
    );

    await owner.get('/inboxes');
    expect(flat(owner.lastHtml)).toContain(
      `Reads at 127.0.0.1:${String(dovecot.port)} · sends through 127.0.0.1:${String(closedPort)}`,
    );
    const opened = await owner.post(`/inboxes/${wes.id}/connect`, {});
    expect(opened.status).toBe(303);
    const page = opened.headers.get('location') ?? '';
    await owner.get(page);
    expect(owner.lastHtml).toContain('name="smtpHost"');
    const token = new URL(page, 'http://x').searchParams.get('token') ?? '';
    const fields = {
      token,
      username: '',
      imapHost: '127.0.0.1',
      imapPort: String(dovecot.port),
      smtpHost: '127.0.0.1',
      servers: 'shown',
    };
    // A wrong password at the IMAP server saves nothing, the typed servers stay in the form.
    const refused = await owner.post('/connect/imap', {
      ...fields,
      smtpPort: String(sink.port),
      password: 'nope',
    });
    expect(refused.status).toBe(400);
    expect(owner.lastHtml).toContain(`value="${String(sink.port)}"`);
    expect((await stored(wes.id)).smtpPort).toBe(closedPort);
    const res = await owner.post('/connect/imap', {
      ...fields,
      smtpPort: String(sink.port),
      password: 'wes-pw',
    });
    expect(res.status).toBe(200);
    expect(owner.lastHtml).not.toContain('Sending will not work');
    expect(await stored(wes.id)).toMatchObject({ smtpHost: '127.0.0.1', smtpPort: sink.port });
    // Agents see where the inbox sends from now on.
    const listed = expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[];
    expect(listed.find((i) => i.id === wes.id)).toMatchObject({ smtpHost: '127.0.0.1', smtpPort: sink.port });
    // The same approval now sends, through the server the owner gave.
    expectToolOk(await send());
    await sink.waitFor(1);
    expect(sink.received.at(-1)?.auth).toBe('wes');
  });

  it('lets the owner correct a wrong incoming server, tested before it is saved', async () => {
    const xia = await added('xia', {
      imapHost: 'localhost',
      imapPort: 1,
      smtpHost: '127.0.0.1',
      smtpPort: sink.port,
    });
    await owner.get(xia.path);
    const fields = {
      token: xia.token,
      username: '',
      smtpHost: '127.0.0.1',
      smtpPort: String(sink.port),
      servers: 'shown',
    };
    const post = (more: Record<string, string>) => owner.post('/connect/imap', { ...fields, ...more });

    expect((await post({ imapHost: '127.0.0.1', imapPort: 'nine', password: 'xia-pw' })).status).toBe(400);
    expect(flat(owner.lastHtml)).toContain('imapPort must be between 1 and 65535.');
    expect(flat(owner.lastHtml)).toContain('5 attempts left');

    expect((await post({ imapHost: '127.0.0.1', imapPort: '1', password: 'xia-pw' })).status).toBe(400);
    expect(flat(owner.lastHtml)).toContain(
      'The mail server could not be reached. Check the server name and port with your provider. If your provider gives another server, correct it below.',
    );
    expect(flat(owner.lastHtml)).toContain('4 attempts left');
    expect(await stored(xia.id)).toMatchObject({
      imapHost: 'localhost',
      imapPort: 1,
      connectionStatus: 'not_connected',
    });

    expect(
      (await post({ imapHost: '127.0.0.1', imapPort: String(dovecot.port), password: 'xia-pw' })).status,
    ).toBe(200);
    expect(await stored(xia.id)).toMatchObject({
      imapHost: '127.0.0.1',
      imapPort: dovecot.port,
      connectionStatus: 'connected',
    });
    expectToolOk(await call('sync_inbox', { inboxId: xia.id }));
  });

  it('a page opened before its owner signed in takes the password for the servers in place', async () => {
    const zed = await added('xia', {
      imapHost: '127.0.0.1',
      imapPort: dovecot.port,
      smtpHost: '127.0.0.1',
      smtpPort: sink.port,
    });
    await owner.get(zed.path);
    // The form without server fields, sent once the owner has signed in (in another tab, say).
    const res = await owner.post('/connect/imap', { token: zed.token, username: 'xia', password: 'xia-pw' });
    expect(res.status).toBe(200);
    expect(await stored(zed.id)).toMatchObject({
      imapPort: dovecot.port,
      smtpPort: sink.port,
      connectionStatus: 'connected',
    });
  });

  it('refuses servers onto a mailbox another inbox of the account reads, and servers from anyone but the owner', async () => {
    const yan = await added('vera', {
      imapHost: 'localhost',
      imapPort: 2,
      smtpHost: '127.0.0.1',
      smtpPort: sink.port,
    });
    await owner.get(yan.path);
    const res = await owner.post('/connect/imap', {
      token: yan.token,
      username: '',
      password: 'vera-pw',
      imapHost: '127.0.0.1',
      imapPort: String(dovecot.port),
      smtpHost: '127.0.0.1',
      smtpPort: String(sink.port),
      servers: 'shown',
    });
    expect(res.status).toBe(400);
    expect(flat(owner.lastHtml)).toContain(
      'Another inbox here, “vera”, already reads this mailbox at 127.0.0.1.',
    );
    expect(await stored(yan.id)).toMatchObject({
      imapHost: 'localhost',
      imapPort: 2,
      connectionStatus: 'not_connected',
    });

    const stranger = 'acct_someoneelse000000' as AccountId;
    const done = await app.services.tools.inboxes.completeSecretCapture(yan.token, '', 'vera-pw', {
      by: stranger,
      servers: { imapHost: '127.0.0.1', imapPort: dovecot.port },
    });
    expect(done).toMatchObject({ ok: false, error: { reason: 'invalid_servers' } });
  });
});
