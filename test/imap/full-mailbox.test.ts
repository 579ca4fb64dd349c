import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import {
  appendViaImap,
  buildMessage,
  startDovecot,
  startSmtpSink,
  type Dovecot,
  type SmtpSink,
} from '../rig/index.ts';
import { connectImapInbox, imapClient } from '../support/imap-inbox.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolError, expectToolOk, type toolCaller } from '../support/tool-caller.ts';
import type { WebClient } from '../support/web-client.ts';

// A mailbox over its storage quota (a free iCloud or Gmail account fills up) refuses every APPEND and COPY with
// `NO [OVERQUOTA]` (RFC 5530) while moves inside it still work. A draft was refused "the mail server refused
// (OVERQUOTA)"; a send from a mailbox that filled after its draft was written went out, but its copy in Sent was
// refused and the sent draft stayed in Drafts, ready to be sent a second time from the person's own client.
const USER = 'flo';
const PASSWORD = 'flo-imap-password';
const FULL = 'the mailbox is full (over its storage quota)';

describe('a mailbox over its storage quota', () => {
  let dovecot: Dovecot;
  let sink: SmtpSink;
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let web: WebClient;
  let inboxId: string;
  const message = (i: number, kilobytes: number) =>
    buildMessage({
      from: { address: `sender${String(i)}@example.org` },
      to: [{ address: `${USER}@example.test` }],
      subject: `Message ${String(i)}`,
      date: new Date(Date.UTC(2026, 9, i + 1)),
      messageId: `<full-${String(i)}@rig.test>`,
      text: 'x'.repeat(kilobytes * 1024),
    });
  const deliver = (...raw: Buffer[]) =>
    appendViaImap({
      host: '127.0.0.1',
      port: dovecot.port,
      user: USER,
      password: PASSWORD,
      messages: raw.map((r) => ({ raw: r })),
    });
  /** The subjects in one folder, read at the server. */
  const subjects = async (path: string): Promise<string[]> => {
    const c = await imapClient(dovecot, USER, PASSWORD);
    try {
      const lock = await c.getMailboxLock(path);
      try {
        if (c.mailbox === false || c.mailbox.exists === 0) return [];
        const out: string[] = [];
        for await (const m of c.fetch('1:*', { envelope: true })) out.push(m.envelope?.subject ?? '');
        return out;
      } finally {
        lock.release();
      }
    } finally {
      await c.logout();
    }
  };

  beforeAll(async () => {
    [dovecot, sink] = await Promise.all([
      startDovecot({ users: { [USER]: PASSWORD }, quota: '100k' }),
      startSmtpSink({ users: { [USER]: PASSWORD } }),
    ]);
    await deliver(...[0, 1, 2, 3, 4].map((i) => message(i, 9))); // ~46 KB of 100
    app = await createTestApp();
    ({ call, web } = await agentOn(app));
    inboxId = await connectImapInbox(app, call, {
      dovecot,
      user: USER,
      password: PASSWORD,
      smtpPort: sink.port,
    });
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await Promise.all([sink.stop(), dovecot.stop()]);
  });

  let first: Record<string, unknown>;
  let second: Record<string, unknown>;
  const draft = (subject: string, kilobytes = 20) =>
    call('create_draft', { inboxId, to: 'friend@example.org', subject, text: 'y'.repeat(kilobytes * 1024) });

  it('refuses a draft in words once full, and writes nothing', async () => {
    first = expectToolOk(await draft('Written before it filled')); // ~66 KB
    second = expectToolOk(await draft('Sent from the console', 10)); // ~77 KB
    await deliver(message(5, 15)); // ~92 KB: another 20 KB does not fit
    const refused = expectToolError(await draft('Written once full'), 'provider_error');
    expect(refused['message']).toContain(FULL);
    expect(refused['message']).not.toContain('OVERQUOTA');
    expect(await subjects('Drafts')).toEqual(['Written before it filled', 'Sent from the console']);
  });

  it('still moves mail, and undoes the move', async () => {
    const listed = expectToolOk(await call('list_messages', { inboxId }))['messages'] as {
      messageId: string;
      subject: string;
    }[];
    const one = listed.find((m) => m.subject === 'Message 0')!;
    const moved = expectToolOk(
      await call('act_on_messages', { action: 'trash', items: [{ inboxId, messageId: one.messageId }] }),
    );
    expect(await subjects('Trash')).toEqual(['Message 0']);
    expectToolOk(await call('undo_action', { undoId: moved['undoId'] }));
    expect(await subjects('Trash')).toEqual([]);
  });

  it('sends a draft written before it filled once, says why no copy is in Sent, and removes the draft', async () => {
    const sent = expectToolOk(
      await call('send_draft', {
        pendingSendId: first['pendingSendId'],
        approvalCode: first['approvalCode'],
        humanApprovedInChat: true,
      }),
    );
    expect(sent['sent']).toBe(true);
    await sink.waitFor(1);
    expect(sink.received).toHaveLength(1);
    expect(sent['warnings']).toEqual([expect.stringContaining('its copy could not be filed in Sent')]);
    expect((sent['warnings'] as string[])[0]).toContain(FULL);
    // The person is told, not only the agent.
    expect(sent['sayToHuman']).toMatch(/^The message was sent, but its copy could not be filed in Sent/);
    expect(sent['sayToHuman']).toContain(FULL);
    expect(await subjects('Sent')).toEqual([]);
    expect(await subjects('Drafts')).toEqual(['Sent from the console']);
  });

  it('says the same on the console when the person sends from there, once', async () => {
    await deliver(message(6, 20)); // the first draft’s room taken again
    await web.get('/waiting');
    const res = await web.post('/waiting/send', { id: second['pendingSendId'] as string });
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toBe('/waiting');
    await web.get(location);
    expect(web.lastHtml).toContain('The message was sent, but its copy could not be filed in Sent');
    expect(web.lastHtml).toContain(FULL);
    expect(web.lastHtml).not.toContain('It is in your Sent folder');
    await sink.waitFor(2);
    expect(await subjects('Sent')).toEqual([]);
    expect(await subjects('Drafts')).toEqual([]);
    await web.get('/waiting'); // shown once
    expect(web.lastHtml).not.toContain('its copy could not be filed');
  });
});
