import type { AttachmentSpec, Mailbox } from './message-builder.ts';
import { buildMessage } from './message-builder.ts';
import type { KindContext, MessageKind, Thread } from './message-kinds.ts';
import { MESSAGE_KINDS, messageSpec, weightedKind } from './message-kinds.ts';
import { createPrng } from './prng.ts';

/**
 * Deterministic generator of realistic mailboxes. The same (count, options)
 * always yields byte-identical messages, and each comes with the decoded
 * values a test should see after the server and parser are done with it.
 */

export { buildMessage } from './message-builder.ts';
export type { MessageSpec } from './message-builder.ts';
export { MESSAGE_KINDS } from './message-kinds.ts';

export interface GeneratedMessage {
  raw: Buffer;
  /** IMAP system flags: \Seen on ~75%, some \Flagged and \Answered */
  flags: string[];
  internalDate: Date;
  /** decoded Subject, as a parser should return it */
  subject: string;
  /** "<id@host>" */
  messageId: string;
  /** sender address */
  from: string;
  /** decoded sender display name ('' when none) */
  fromName: string;
  kind: MessageKind;
  /** exact attachment bytes, to compare against what IMAP returns */
  attachments: AttachmentSpec[];
  inReplyTo?: string;
  listId?: string;
}

interface GenerateOptions {
  seed: number;
  /** internal date of the first message (default 2025-01-06T08:00:00Z) */
  startDate?: Date;
  /** mean gap between messages (default 45 min) */
  intervalMs?: number;
  /** the mailbox owner, used as To: (default alice@example.test) */
  owner?: Mailbox;
  /** restrict generation to these kinds (default: all) */
  kinds?: readonly MessageKind[];
}

/**
 * `count` messages with internal dates ascending from `startDate`. The first
 * messages cover every kind once (see MESSAGE_KINDS); the rest are a weighted
 * mix: ~30% personal, 25% newsletters, 15% replies in existing threads, 10%
 * multipart/alternative, 10% with an attachment, 10% legacy charsets.
 */
export function generateMessages(count: number, opts: GenerateOptions): GeneratedMessage[] {
  const rng = createPrng(opts.seed);
  const owner = opts.owner ?? { name: 'Alice Example', address: 'alice@example.test' };
  const start = (opts.startDate ?? new Date('2025-01-06T08:00:00Z')).getTime();
  const interval = opts.intervalMs ?? 45 * 60_000;
  const kinds = opts.kinds ?? MESSAGE_KINDS;
  const threads: Thread[] = [];
  const out: GeneratedMessage[] = [];
  for (let i = 0; i < count; i++) {
    // Whole seconds: maildir mtimes and IMAP INTERNALDATE have 1 s resolution.
    const internalDate = new Date(Math.floor((start + i * interval + rng.int(interval / 2)) / 1000) * 1000);
    let kind = i < kinds.length ? (kinds[i] ?? 'personal') : weightedKind(rng, kinds);
    if (kind === 'reply' && threads.length === 0) kind = 'personal'; // nothing to reply to yet
    const ctx: KindContext = {
      i,
      rng,
      owner,
      threads,
      seed: opts.seed,
      date: new Date(internalDate.getTime() - rng.int(120) * 1000), // sent a little before delivery
      dateOffsetMinutes: rng.pick([0, 60, 120, -300, -480, 330, 540]),
    };
    const spec = messageSpec(kind, ctx);
    const seen = rng.chance(0.75);
    const flags = [
      ...(seen ? ['\\Seen'] : []),
      ...(rng.chance(0.07) ? ['\\Flagged'] : []),
      ...(seen && rng.chance(0.1) ? ['\\Answered'] : []),
    ];
    out.push({
      raw: buildMessage(spec),
      flags,
      internalDate,
      subject: spec.subject,
      messageId: spec.messageId,
      from: spec.from.address,
      fromName: spec.from.name ?? '',
      kind,
      attachments: spec.attachments ?? [],
      ...(spec.inReplyTo ? { inReplyTo: spec.inReplyTo } : {}),
      ...(spec.list ? { listId: spec.list.id } : {}),
    });
  }
  return out;
}
