import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenMail } from '../rig/broken-mail.ts';
import {
  dovecotBackend,
  gmailBackend,
  graphBackend,
  PLAIN_IMAP_SERVER,
  type Backend,
} from '../support/mail-backends.ts';

// Mail that breaks its format's rules — no sender or a group for one, dates that do not parse, multiparts without a
// boundary, never closed or 120 deep, unknown charsets and encodings, raw 8-bit and control bytes in headers, bad
// base64, 600 attachments, a 100 KB subject, 3,000 recipients, hostile filenames and unsubscribe links — delivered
// by another client to each kind of mailbox. Every message reaches the index, and every tool that reads, downloads,
// screens, proposes or changes answers it: a result or a documented refusal, never an internal error.
const MAILBOXES: [string, () => Promise<Backend>][] = [
  ['Dovecot', () => dovecotBackend()],
  ['a plain IMAP4rev1 server', () => dovecotBackend(PLAIN_IMAP_SERVER)],
  ['Gmail', () => gmailBackend()],
  ['Microsoft 365', () => graphBackend()],
];

interface Preview {
  messageId: string;
  subject: string;
  from: { address: string };
}

describe.each(MAILBOXES)('broken mail on %s', (_, start) => {
  const corpus = brokenMail();
  let be: Backend;
  let call: Backend['agent']['call'];
  let inboxId: string;
  const refused: string[] = [];
  const checked = async (name: string, args: Record<string, unknown>) => {
    const r = await call(name, args);
    if (r.isError)
      refused.push(`${name} ${JSON.stringify(args).slice(0, 120)}: ${JSON.stringify(r.body).slice(0, 300)}`);
    return r;
  };
  const everyMessage = async (): Promise<Preview[]> => {
    const out: Preview[] = [];
    for (let offset: number | null = 0; offset !== null;) {
      const page = await checked('list_messages', { inboxId, limit: 100, offset });
      out.push(...(page.body['messages'] as Preview[]));
      offset = page.body['nextOffset'] as number | null;
    }
    return out;
  };
  let broken: Preview[];

  beforeAll(async () => {
    be = await start();
    ({ call } = be.agent);
    inboxId = be.inboxId;
    // The mailbox's own mail first (a first sync may still be on its way): what is new after delivery is the corpus.
    await checked('sync_inbox', { inboxId });
    const before = new Set((await everyMessage()).map((m) => m.messageId));
    for (const m of corpus) await be.outside!.deliver(m.raw);
    await checked('sync_inbox', { inboxId });
    broken = (await everyMessage()).filter((m) => !before.has(m.messageId));
  }, 300_000);

  afterAll(async () => {
    await be.close();
  });

  it('indexes every message and reads each one, its attachments downloaded with safe headers', async () => {
    expect(broken).toHaveLength(corpus.length);
    let downloads = 0;
    for (const m of broken) {
      const full = await checked('get_message', { inboxId, messageId: m.messageId });
      expect(full.isError, `${m.subject.slice(0, 40)}: ${JSON.stringify(full.body).slice(0, 200)}`).toBe(
        false,
      );
      for (const a of ((full.body['attachments'] ?? []) as { partId: string }[]).slice(0, 3)) {
        const link = await checked('get_attachment', { inboxId, messageId: m.messageId, partId: a.partId });
        const res = await be.app.fetch(new Request(link.body['url'] as string));
        await res.arrayBuffer();
        expect(res.status).toBe(200);
        expect(res.headers.get('content-disposition')).toMatch(
          /^attachment; filename="[\x20-\x7e]*"; filename\*=/,
        );
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('content-security-policy')).toContain('sandbox');
        downloads++;
      }
    }
    // The first three of the 600 attachments and the two hostile filenames, at least.
    expect(downloads).toBeGreaterThanOrEqual(5);
    expect(refused).toEqual([]);
  });

  it('searches, screens, proposes unsubscribing, changes and undoes them', async () => {
    await checked('search_mailbox', { inboxId, query: 'Broken', limit: 50 });
    const screened = await checked('screen_junk', { inbox: inboxId });
    expect((screened.body['messages'] as unknown[]).length).toBeGreaterThan(0);
    const senders = await checked('review_unsubscribes', { inbox: inboxId, limit: 100 });
    for (const s of senders.body['senders'] as { messageId: string }[]) {
      // Unsigned list mail is refused, in a documented code; never a failure of ours.
      const proposed = await call('propose_unsubscribe', { inboxId, messageId: s.messageId });
      expect(proposed.body['error'] ?? 'ok').toMatch(/^(ok|unsubscribe_unavailable)$/);
    }
    const items = broken.map((m) => ({ inboxId, messageId: m.messageId }));
    const acted = await checked('act_on_messages', { action: 'archive', items });
    expect((acted.body['changed'] as unknown[]).length).toBe(corpus.length);
    const undone = await checked('undo_action', { undoId: acted.body['undoId'] });
    expect(undone.isError).toBe(false);
    expect(refused).toEqual([]);
  });
});
