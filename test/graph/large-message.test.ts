import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RAW_BYTES, type MailSession } from '../../src/core/mail/mail-ports.ts';
import { buildMessage } from '../rig/message-factory.ts';
import { graphHarness } from './graph-harness.ts';

// Exchange Online takes messages of up to 150 MB. Reading one downloaded its whole MIME and parsed it — attachments
// decoded into memory — every time an agent read it, for a text of a few kilobytes; and the unsubscribe check read
// it whole before finding it too large. Both now read at most what they use (decision 0098).
describe('a large message on Microsoft Graph', () => {
  let h: Awaited<ReturnType<typeof graphHarness>>;
  let s: MailSession;
  const video = randomBytes(24 * 1024 * 1024);
  beforeAll(async () => {
    h = await graphHarness();
    s = await h.session();
    await h.append(
      h.inboxPath,
      buildMessage({
        from: { address: 'sam@example.org', name: 'Sam' },
        to: [{ address: 'pat@contoso.test' }],
        cc: [{ address: 'carol@example.org', name: 'Carol' }],
        subject: 'The launch video',
        date: new Date(Date.UTC(2026, 10, 30)),
        messageId: '<video@example.org>',
        text: 'Here is the cut we talked about. Comments by Friday?\n',
        html: '<p>Here is the cut we talked about. <b>Comments by Friday?</b></p>',
        attachments: [{ filename: 'launch.mp4', contentType: 'video/mp4', content: video }],
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await s.close();
    await h.close();
  });

  it('is read from the first 2 MB of its MIME: the text, the people, the attachment listed and whole', async () => {
    const { added } = await s.changes(h.inboxPath, null, { windowSize: 10, knownRefs: [] });
    const ref = added[0]!.ref;
    const id = h.graph.find('<video@example.org>')!.id;
    const rawSize = h.graph.find('<video@example.org>')!.raw.length;
    const full = await s.fetchMessage(h.inboxPath, ref);
    expect(full!.text).toContain('Comments by Friday?');
    expect(full!.html).toContain('<b>Comments by Friday?</b>');
    expect(full!.cc).toEqual([{ address: 'carol@example.org', name: 'Carol' }]);
    expect(full!.summary.size).toBeGreaterThanOrEqual(video.length);
    expect(full!.attachments).toMatchObject([{ filename: 'launch.mp4', size: video.length }]);
    // The stub produces what is read, 64 KB at a time; stream buffers hold a little more.
    expect(h.graph.valueBytesServed.get(id)).toBeLessThan(4 * 1024 * 1024);
    expect(rawSize).toBeGreaterThan(32 * 1024 * 1024);

    const opened = await s.openAttachment(h.inboxPath, ref, full!.attachments[0]!.partId);
    const chunks: Uint8Array[] = [];
    for await (const c of opened!.content) chunks.push(c);
    expect(Buffer.concat(chunks).equals(video)).toBe(true);
  });

  it('is not downloaded whole to find it too large for the unsubscribe check', async () => {
    const { added } = await s.changes(h.inboxPath, null, { windowSize: 10, knownRefs: [] });
    const id = h.graph.find('<video@example.org>')!.id;
    const before = h.graph.valueBytesServed.get(id) ?? 0;
    expect(await s.fetchRaw(h.inboxPath, added[0]!.ref)).toBeUndefined();
    expect((h.graph.valueBytesServed.get(id) ?? 0) - before).toBeLessThan(MAX_RAW_BYTES + 4 * 1024 * 1024);
  });
});
