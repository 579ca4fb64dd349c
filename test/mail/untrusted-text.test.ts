import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adversarialCorpus } from '../rig/adversarial-corpus.ts';
import { dovecotBackend, gmailBackend, graphBackend, type Backend } from '../support/mail-backends.ts';
import type { ToolResult } from '../support/tool-caller.ts';

// Issue 22, on every kind of mailbox the service reads: 240 hostile messages delivered to Dovecot, to Gmail (emulate)
// and to Microsoft 365 (the Graph stub), each provider turning them into its own fields (Graph's bodyPreview and
// HTML body, Gmail's snippet and payload parts). Every string a sender wrote reaches the agent inside its result's
// markers (⟦n⟧…⟦/n⟧) or, for bodies, inside the nonce fence; no marker can be escaped or forged; no invisible, bidi
// or control character gets through. Each message carries a canary per field, so every place a field's text shows up
// in any result is found and checked.
const CANARY = /cz[snlbfty]\d{4}q/g;
// Invisible, bidi, tag and control characters (tab and newline aside), as core/messages/untrusted-content.ts strips.
const HIDDEN =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/;
const BODY_FENCE =
  /<<<UNTRUSTED_EMAIL_BODY nonce="([a-z0-9]+)">>>[\s\S]*?<<<END_UNTRUSTED_EMAIL_BODY nonce="\1">>>/g;

interface Audit {
  strings: number;
  canariesSeen: number;
  /** Canaries seen by field: s(ubject), n(ame), l(ocal part), b(ody), f(ilename), (lis)t. */
  byField: Map<string, number>;
  canariesOutside: string[];
  hidden: string[];
  badMarkers: string[];
  nonces: Set<string>;
}

const strings = (v: unknown): string[] =>
  typeof v === 'string'
    ? [v]
    : Array.isArray(v)
      ? v.flatMap(strings)
      : typeof v === 'object' && v !== null
        ? Object.values(v).flatMap(strings)
        : [];

/** Checks one result as an agent receives it (raw structuredContent), adding to the tally. */
function audit(a: Audit, tool: string, r: ToolResult): void {
  const notice = typeof r.raw['untrusted'] === 'string' ? r.raw['untrusted'] : undefined;
  const nonce = notice === undefined ? undefined : /\u27e6([a-z0-9]{6})\u27e7/.exec(notice)?.[1];
  if (nonce !== undefined) {
    if (a.nonces.has(nonce)) a.badMarkers.push(`${tool}: nonce ${nonce} reused`);
    a.nonces.add(nonce);
  }
  for (const s of strings(r.raw)) {
    if (s === notice) continue;
    a.strings++;
    if (HIDDEN.test(s)) a.hidden.push(`${tool}: ${JSON.stringify(s.slice(0, 80))}`);
    for (const c of s.match(CANARY) ?? []) {
      a.canariesSeen++;
      a.byField.set(c.charAt(2), (a.byField.get(c.charAt(2)) ?? 0) + 1);
    }
    // Take away every properly marked segment (this result's nonce only) and every body fence: what is left is
    // the service's own words, which must hold no sender text and no marker bracket at all.
    const marked =
      nonce === undefined
        ? s
        : s.replace(new RegExp(`\u27e6${nonce}\u27e7[^\u27e6\u27e7]*\u27e6/${nonce}\u27e7`, 'g'), '');
    const rest = marked.replace(BODY_FENCE, '');
    for (const c of rest.match(CANARY) ?? [])
      a.canariesOutside.push(`${tool}: ${c} in ${JSON.stringify(s.slice(0, 120))}`);
    if (/[\u27e6\u27e7]/.test(rest))
      a.badMarkers.push(`${tool}: stray marker in ${JSON.stringify(s.slice(0, 120))}`);
  }
}

const MAILBOXES: [string, () => Promise<Backend>][] = [
  ['Dovecot', dovecotBackend],
  ['Gmail', () => gmailBackend()],
  ['Microsoft 365', () => graphBackend()],
];

describe.each(MAILBOXES)(
  'every word a stranger wrote reaches the agent fenced (240 hostile messages, %s)',
  (_, start) => {
    const corpus = adversarialCorpus(240);
    let be: Backend;
    let call: Backend['agent']['call'];
    let inboxId: string;
    const tally: Audit = {
      strings: 0,
      canariesSeen: 0,
      byField: new Map(),
      canariesOutside: [],
      hidden: [],
      badMarkers: [],
      nonces: new Set(),
    };
    const checked = async (name: string, args: Record<string, unknown>) => {
      const r = await call(name, args);
      audit(tally, name, r);
      return r;
    };

    beforeAll(async () => {
      be = await start();
      ({ call } = be.agent);
      inboxId = be.inboxId;
      // Delivered by another client after the mailbox's own mail: the service meets them on its next sync.
      for (const m of corpus) await be.outside!.deliver(m.raw);
      const synced = await call('sync_inbox', { inboxId });
      expect(synced.isError, JSON.stringify(synced.body)).toBe(false);
    }, 300_000);

    afterAll(async () => {
      await be.close();
    });

    it('reads every message, lists, searches, lists senders and acts, and checks every string returned', async () => {
      type Preview = { messageId: string; from: { address: string } };
      const previews: Preview[] = [];
      for (let offset: number | null = 0; offset !== null;) {
        const page = await checked('list_messages', { inboxId, folder: 'inbox', limit: 40, offset });
        expect(page.body['truncated']).toBeUndefined();
        previews.push(...(page.body['messages'] as Preview[]));
        offset = page.body['nextOffset'] as number | null;
      }
      let attachments = 0;
      const hostile = previews.filter((p) => p.from.address.includes('evil.example'));
      expect(hostile).toHaveLength(240);
      for (const p of hostile) {
        const full = await checked('get_message', { inboxId, messageId: p.messageId });
        expect(full.isError, JSON.stringify(full.body)).toBe(false);
        for (const a of (full.body['attachments'] as { partId: string }[] | undefined) ?? []) {
          const got = await checked('get_attachment', { inboxId, messageId: p.messageId, partId: a.partId });
          expect(got.isError, JSON.stringify(got.body)).toBe(false);
          attachments++;
        }
      }
      expect(attachments, 'every fourth message has one').toBe(60);
      await checked('search_mailbox', { inboxId, query: 'instructions', limit: 50 });
      await checked('search_mailbox', { inboxId, query: 'evil.example', limit: 50 });
      const senders = await checked('review_unsubscribes', { inbox: inboxId, limit: 100 });
      const proposals = senders.body['senders'] as { messageId: string; sender: { address: string } }[];
      expect(proposals.filter((p) => p.sender.address.includes('evil.example'))).toHaveLength(48);
      for (const p of proposals) {
        // Hostile list mail is not signed: its proposals are refused, in words that quote the list marked. The
        // mailbox's own three lists are signed.
        const proposed = await checked('propose_unsubscribe', { inboxId, messageId: p.messageId });
        expect(proposed.body['error'] ?? 'ok', JSON.stringify(proposed.body)).toBe(
          p.sender.address.includes('evil.example') ? 'unsubscribe_unavailable' : 'ok',
        );
      }
      // A change's result names what it moved; the undo's names what it restored.
      const some = hostile.slice(0, 12).map((p) => ({ inboxId, messageId: p.messageId }));
      const acted = await checked('act_on_messages', { action: 'archive', items: some });
      expect(acted.isError, JSON.stringify(acted.body)).toBe(false);
      await checked('undo_action', { undoId: acted.body['undoId'] });
      // A VIP's address quoted in a refusal is marked too.
      const vip = hostile[0]!.from.address;
      await checked('add_vip', { emails: [vip] });
      await checked('trash_message', { inboxId, messageId: hostile[0]!.messageId });

      // What the views and screening show: the inbox view's rows and its text, every screening batch (subject, names,
      // snippet, excerpt, list), and Screened's review of what was judged junk — with a reason that quotes the mail.
      for (let offset = 0; offset < 300; offset += 50)
        await checked('show_inbox', { inboxId, folder: 'inbox', limit: 50, offset });
      const judged: { inboxId: string; messageId: string; verdict: string; reason: string }[] = [];
      for (let round = 0; round < 10; round++) {
        const batch = await checked('screen_junk', { inbox: inboxId });
        expect(batch.isError, JSON.stringify(batch.body)).toBe(false);
        const offered = batch.body['messages'] as { inboxId: string; messageId: string; subject: string }[];
        const verdicts = offered.map((m, i) => ({
          inboxId: m.inboxId,
          messageId: m.messageId,
          verdict: i % 5 === 0 ? 'junk' : 'fine',
          reason: `It says: ${m.subject.slice(0, 200)}`,
        }));
        if (verdicts.length > 0) await checked('confirm_screening', { verdicts });
        judged.push(...verdicts);
        if (batch.body['more'] !== true) break;
      }
      expect(judged.length, 'every message of the inbox judged once').toBeGreaterThan(240);
      await checked('review_screened', { inbox: inboxId, limit: 100 });
      await checked('show_screened', { inbox: inboxId, limit: 100 });

      // Each field of each message reached the agent, whatever the provider made of it (an attachment: one in four; a
      // list's name: one in five).
      const least = { s: 240, n: 240, l: 240, b: 240, f: 60, y: 60, t: 48 };
      const short = Object.entries(least).filter(([f, n]) => (tally.byField.get(f) ?? 0) < n);
      expect(short, `canaries seen by field: ${JSON.stringify([...tally.byField])}`).toEqual([]);
      expect(tally.canariesOutside, 'sender text outside the markers').toEqual([]);
      expect(tally.hidden, 'invisible, bidi or control characters').toEqual([]);
      expect(tally.badMarkers, 'escaped, stray or reused markers').toEqual([]);
    }, 600_000);

    it('takes a marked value back as an argument (an address to act on, a thread to reply in)', async () => {
      const listed = await call('list_messages', {
        inboxId,
        folder: 'inbox',
        query: 'evil.example',
        limit: 1,
      });
      const [first] = listed.raw['messages'] as {
        messageId: string;
        from: { address: string };
        threadId: string;
      }[];
      expect(first!.from.address).toMatch(/^\u27e6[a-z0-9]{6}\u27e7.+\u27e6\/[a-z0-9]{6}\u27e7$/);
      const bySender = await call('act_on_messages', {
        action: 'star',
        sender: { inboxId, email: first!.from.address },
      });
      expect(bySender.isError, JSON.stringify(bySender.body)).toBe(false);
      expect((bySender.body['changed'] as unknown[]).length).toBeGreaterThan(0);
    });
  },
);
