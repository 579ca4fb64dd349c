import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMessage } from '../rig/index.ts';
import { sendingInbox, type SendingInbox } from '../support/sending-inbox.ts';
import { expectToolError, expectToolOk } from '../support/tool-caller.ts';

// A mailbox over its storage quota (a free iCloud or Gmail account fills up) refuses every APPEND and COPY with
// `NO [OVERQUOTA]` (RFC 5530) while moves inside it still work. A draft was refused "the mail server refused
// (OVERQUOTA)"; a send from a mailbox that filled after its draft was written went out, but its copy in Sent was
// refused and the sent draft stayed in Drafts, ready to be sent a second time from the person's own client.
const USER = 'flo';
const PASSWORD = 'flo-imap-password';
const FULL = 'the mailbox is full (over its storage quota)';

describe('a mailbox over its storage quota', () => {
  let box: SendingInbox;
  let call: SendingInbox['call'];
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
  const subjects = (path: string) => box.subjects(path);

  beforeAll(async () => {
    box = await sendingInbox(USER, PASSWORD, {
      dovecot: { quota: '100k' },
      mail: [0, 1, 2, 3, 4].map((i) => message(i, 9)), // ~46 KB of 100
    });
    ({ call, inboxId } = box);
  }, 120_000);

  afterAll(async () => {
    await box.close();
  });

  let first: Record<string, unknown>;
  let second: Record<string, unknown>;
  const draft = (subject: string, kilobytes = 20) =>
    call('create_draft', { inboxId, to: 'friend@example.org', subject, text: 'y'.repeat(kilobytes * 1024) });

  it('refuses a draft in words once full, and writes nothing', async () => {
    first = expectToolOk(await draft('Written before it filled')); // ~66 KB
    second = expectToolOk(await draft('Sent from the console', 10)); // ~77 KB
    await box.deliver(message(5, 15)); // ~92 KB: another 20 KB does not fit
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
    const sent = expectToolOk(await box.send(first));
    expect(sent['sent']).toBe(true);
    await box.sink.waitFor(1);
    expect(box.sink.received).toHaveLength(1);
    expect(sent['warnings']).toEqual([expect.stringContaining('its copy could not be filed in Sent')]);
    expect((sent['warnings'] as string[])[0]).toContain(FULL);
    // The person is told, not only the agent.
    expect(sent['sayToHuman']).toMatch(/^The message was sent, but its copy could not be filed in Sent/);
    expect(sent['sayToHuman']).toContain(FULL);
    expect(await subjects('Sent')).toEqual([]);
    expect(await subjects('Drafts')).toEqual(['Sent from the console']);
  });

  it('says the same on the console when the person sends from there, once', async () => {
    await box.deliver(message(6, 20)); // the first draft’s room taken again
    await box.web.get('/waiting');
    const res = await box.web.post('/waiting/send', { id: second['pendingSendId'] as string });
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toBe('/waiting');
    await box.web.get(location);
    expect(box.web.lastHtml).toContain('The message was sent, but its copy could not be filed in Sent');
    expect(box.web.lastHtml).toContain(FULL);
    expect(box.web.lastHtml).not.toContain('It is in your Sent folder');
    await box.sink.waitFor(2);
    expect(await subjects('Sent')).toEqual([]);
    expect(await subjects('Drafts')).toEqual([]);
    await box.web.get('/waiting'); // shown once
    expect(box.web.lastHtml).not.toContain('its copy could not be filed');
  });
});
