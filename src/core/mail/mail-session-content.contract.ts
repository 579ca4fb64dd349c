import { describe, expect, it } from 'vitest';
import { tinyPdf, tinyPng } from '../../../test/rig/attachment-fixtures.ts';
import type { MessageSpec } from '../../../test/rig/message-factory.ts';
import { byId, bytesOf, type Deliverer, deliver, spec } from './mail-session-fixtures.contract.ts';
import type { MailSession } from './mail-ports.ts';
import type { RemoteSummary, SyncCursor } from './mail-types.ts';

/** The reading half of the MailSession contract: bodies, attachments, provider search and push. */
export interface ContentContext {
  readonly h: Deliverer & { readonly watchNoticesDelivery?: boolean };
  readonly s: MailSession;
}

export function contentCases(ctx: () => ContentContext): void {
  const first = (): Promise<{ cursor: SyncCursor; added: readonly RemoteSummary[] }> => {
    const { h, s } = ctx();
    return s.changes(h.inboxPath, null, { windowSize: 50, knownRefs: [] });
  };

  describe('a message with text, HTML and attachments', () => {
    const png = tinyPng(6, 4, [200, 40, 90]);
    const pdf = tinyPdf('Quarterly numbers');
    const rich = (): MessageSpec =>
      spec(1, {
        subject: 'Quarterly numbers',
        cc: [{ name: 'Carol', address: 'carol@example.org' }],
        inReplyTo: '<parent@example.com>',
        references: ['<root@example.com>', '<parent@example.com>'],
        headers: { 'Reply-To': 'replies@example.org' },
        text: 'The plain body: numbers attached.\n',
        html: '<p>The <b>HTML</b> body: numbers attached.</p>',
        attachments: [
          { filename: 'chart.png', contentType: 'image/png', content: png },
          { filename: 'Übersicht 2025 ✓.pdf', contentType: 'application/pdf', content: pdf },
        ],
      });

    it('fetchMessage returns text, html, addresses, thread headers and attachments', async () => {
      const { h, s } = ctx();
      const [m] = await deliver(h, [rich()]);
      const { added } = await first();
      const ref = byId(added, m!).ref;
      const full = await s.fetchMessage(h.inboxPath, ref);
      expect(full).toBeDefined();
      expect(full!.summary).toMatchObject({ ref, subject: 'Quarterly numbers', hasAttachments: true });
      expect(full!.summary.internetMessageId).toBe(m!.messageId);
      expect(full!.text).toContain('The plain body: numbers attached.');
      expect(full!.html).toContain('<b>HTML</b>');
      expect(full!.cc).toEqual([{ address: 'carol@example.org', name: 'Carol' }]);
      expect(full!.replyTo.map((a) => a.address)).toEqual(['replies@example.org']);
      expect(full!.inReplyTo).toBe('<parent@example.com>');
      expect(full!.references).toEqual(['<root@example.com>', '<parent@example.com>']);
      expect(full!.attachments.map((a) => [a.filename, a.contentType, a.inline])).toEqual([
        ['chart.png', 'image/png', false],
        ['Übersicht 2025 ✓.pdf', 'application/pdf', false],
      ]);
      expect(new Set(full!.attachments.map((a) => a.partId)).size).toBe(2);
      expect(await s.fetchMessage(h.inboxPath, '987654')).toBeUndefined();
    });

    it('openAttachment returns the exact bytes', async () => {
      const { h, s } = ctx();
      const [m] = await deliver(h, [rich()]);
      const { added } = await first();
      const ref = byId(added, m!).ref;
      const full = await s.fetchMessage(h.inboxPath, ref);
      const [first_, second] = full!.attachments;
      const a = await s.openAttachment(h.inboxPath, ref, first_!.partId);
      expect(a).toMatchObject({ filename: 'chart.png', contentType: 'image/png' });
      expect((await bytesOf(a!.content)).equals(png)).toBe(true);
      const b = await s.openAttachment(h.inboxPath, ref, second!.partId);
      expect(b?.filename).toBe('Übersicht 2025 ✓.pdf');
      expect((await bytesOf(b!.content)).equals(pdf)).toBe(true);
      expect(await s.openAttachment(h.inboxPath, ref, '9.9')).toBeUndefined();
      // The session stays usable after streaming.
      expect((await s.flagsOf(h.inboxPath, [ref])).map((f) => f.ref)).toEqual([ref]);
    });
  });

  it('searches the provider by subject and by sender, newest first, within the limit', async () => {
    const { h, s } = ctx();
    const [zebra, zelda, ...rest] = await deliver(h, [
      spec(1, { subject: 'Quarterly zebra report' }),
      spec(2, { subject: 'Lunch?', from: { name: 'Zelda', address: 'zelda.unique@example.org' } }),
      ...Array.from({ length: 6 }, (_, i) => spec(10 + i, { subject: `Weekly kumquat update ${i}` })),
      spec(30, { subject: 'Unrelated' }),
    ]);
    const bySubject = await s.search('zebra', [h.inboxPath], 10);
    expect(bySubject.map((x) => x.summary.internetMessageId)).toEqual([zebra!.messageId]);
    expect(bySubject[0]?.path).toBe(h.inboxPath);
    const bySender = await s.search('zelda.unique@example.org', [h.inboxPath], 10);
    expect(bySender.map((x) => x.summary.internetMessageId)).toEqual([zelda!.messageId]);
    const limited = await s.search('kumquat', [h.inboxPath], 3);
    const kumquats = rest.slice(0, 6).reverse().slice(0, 3);
    expect(limited.map((x) => x.summary.internetMessageId)).toEqual(kumquats.map((k) => k.messageId));
    expect(await s.search('no-such-word-anywhere', [h.inboxPath], 10)).toEqual([]);
  });

  it('watch notices new mail', async () => {
    const { h, s } = ctx();
    let fired = 0;
    let wake: () => void = () => undefined;
    const changed = new Promise<void>((resolve) => (wake = resolve));
    const stop = await s.watch(h.inboxPath, () => {
      fired++;
      wake();
    });
    try {
      if (h.watchNoticesDelivery === false) return;
      await deliver(h, [spec(1, { subject: 'Pushed' })]);
      const timeout = new Promise<'timeout'>((resolve) =>
        setTimeout(() => resolve('timeout'), 10_000).unref(),
      );
      expect(await Promise.race([changed.then(() => 'fired' as const), timeout])).toBe('fired');
      expect(fired).toBeGreaterThan(0);
    } finally {
      await stop();
    }
  });
}
