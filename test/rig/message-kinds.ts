import { tinyPdf, tinyPng } from './attachment-fixtures.ts';
import type { AttachmentSpec, Mailbox, MessageSpec } from './message-builder.ts';
import {
  ATTACHMENT_NAMES,
  LEGACY,
  NEWSLETTERS,
  PARAGRAPHS,
  PEOPLE,
  PERSONAL_SUBJECTS,
} from './message-content.ts';
import type { Prng } from './prng.ts';

/** The kinds of message generateMessages mixes, and how each one is built. */

export type MessageKind =
  | 'personal'
  | 'reply'
  | 'newsletter'
  | 'alternative'
  | 'attachment'
  | 'legacy-latin1'
  | 'legacy-cp1252'
  | 'legacy-iso2022jp';

/** Every kind appears once, in this order, at the start of each generated set. */
export const MESSAGE_KINDS: readonly MessageKind[] = [
  'personal',
  'reply',
  'newsletter',
  'alternative',
  'attachment',
  'legacy-latin1',
  'legacy-cp1252',
  'legacy-iso2022jp',
];
const WEIGHTS: Record<MessageKind, number> = {
  personal: 30,
  reply: 15,
  newsletter: 25,
  alternative: 10,
  attachment: 10,
  'legacy-latin1': 3,
  'legacy-cp1252': 3,
  'legacy-iso2022jp': 4,
};

export interface Thread {
  subject: string;
  ids: string[];
  peer: Mailbox;
}

export function weightedKind(rng: Prng, kinds: readonly MessageKind[]): MessageKind {
  const total = kinds.reduce((sum, k) => sum + WEIGHTS[k], 0);
  let roll = rng.int(total);
  for (const k of kinds) {
    roll -= WEIGHTS[k];
    if (roll < 0) return k;
  }
  return kinds[0] ?? 'personal';
}

export interface KindContext {
  i: number;
  rng: Prng;
  owner: Mailbox;
  threads: Thread[];
  seed: number;
  date: Date;
  dateOffsetMinutes: number;
}

function body(rng: Prng, i: number): string {
  const paragraphs = Array.from({ length: 1 + rng.int(3) }, () => rng.pick(PARAGRAPHS));
  return `Hi,\n\n${paragraphs.join('\n\n')}\n\nMessage #${i}\n`;
}

/** Builds the MessageSpec of message `ctx.i`; replies continue threads from `ctx.threads`. */
export function messageSpec(kind: MessageKind, ctx: KindContext): MessageSpec {
  const { i, rng, threads } = ctx;
  const messageId = `<${ctx.seed}.${i}.${rng.int(0xffffff).toString(16)}@rig.example.test>`;
  const base = { to: [ctx.owner], messageId, date: ctx.date, dateOffsetMinutes: ctx.dateOffsetMinutes };
  switch (kind) {
    case 'reply': {
      const thread = threads.length ? rng.pick(threads.slice(-20)) : undefined;
      if (!thread) return messageSpec('personal', ctx);
      const parent = thread.ids[thread.ids.length - 1];
      const references = thread.ids.slice(-10);
      thread.ids.push(messageId);
      return {
        ...base,
        from: thread.peer,
        subject: `Re: ${thread.subject}`,
        text: `> earlier message\n\n${body(rng, i)}`,
        ...(parent ? { inReplyTo: parent } : {}),
        references,
      };
    }
    case 'newsletter': {
      const n = rng.pick(NEWSLETTERS);
      const topic = rng.pick(n.topics);
      const host = n.listId;
      return {
        ...base,
        from: n.sender,
        subject: `${topic} #${i}`,
        text: `${topic}\n\nRead online: https://${host}/issues/${i}\nUnsubscribe: https://${host}/u/${i}\n`,
        html: `<html><body><h1>${topic}</h1><p>Issue ${i}</p><p><a href="https://${host}/u/${i}">Unsubscribe</a></p></body></html>`,
        list: {
          id: n.listId,
          name: n.listName,
          unsubscribeMailto: `mailto:unsubscribe@${host}?subject=unsubscribe%20${i}`,
          ...(n.https ? { unsubscribeHttps: `https://${host}/u/${i}` } : {}),
          oneClick: n.https && n.oneClick,
        },
      };
    }
    case 'alternative': {
      const text = body(rng, i);
      return {
        ...base,
        from: rng.pick(PEOPLE),
        subject: rng.pick(PERSONAL_SUBJECTS),
        text,
        html: `<html><body>${text
          .split('\n\n')
          .map((p) => `<p>${p}</p>`)
          .join('')}</body></html>`,
      };
    }
    case 'attachment':
      return {
        ...base,
        from: rng.pick(PEOPLE),
        subject: `Files for you (${i})`,
        text: body(rng, i),
        attachments: [attachment(rng, i)],
      };
    case 'legacy-latin1':
      return {
        ...base,
        from: { name: 'Zoë Dupré', address: 'zoe.dupre@exemple.fr' },
        subject: LEGACY.latin1.subject,
        subjectCharset: 'iso-8859-1',
        bodyCharset: 'iso-8859-1',
        text: LEGACY.latin1.body,
      };
    case 'legacy-cp1252':
      return {
        ...base,
        from: { name: 'Accounts', address: 'billing@example.com' },
        subject: LEGACY.cp1252.subject,
        subjectCharset: 'windows-1252',
        bodyCharset: 'windows-1252',
        text: LEGACY.cp1252.body,
      };
    case 'legacy-iso2022jp':
      return {
        ...base,
        from: { name: '山田 太郎', address: 'taro.yamada@example.jp' },
        subject: LEGACY.iso2022jp.subject,
        subjectCharset: 'iso-2022-jp',
        bodyCharset: 'iso-2022-jp',
        text: LEGACY.iso2022jp.body,
      };
    case 'personal': {
      const peer = rng.pick(PEOPLE);
      const subject = rng.pick(PERSONAL_SUBJECTS);
      threads.push({ subject, ids: [messageId], peer });
      return {
        ...base,
        from: peer,
        subject,
        text: body(rng, i),
        ...(rng.chance(0.2) ? { cc: [rng.pick(PEOPLE)] } : {}),
      };
    }
  }
}

function attachment(rng: Prng, i: number): AttachmentSpec {
  switch (rng.int(3)) {
    case 0:
      return {
        filename: ATTACHMENT_NAMES.png(i),
        contentType: 'image/png',
        content: tinyPng(4 + (i % 12), 4 + (i % 7), [rng.int(256), rng.int(256), rng.int(256)]),
      };
    case 1:
      return {
        filename: ATTACHMENT_NAMES.pdf(i),
        contentType: 'application/pdf',
        content: tinyPdf(`Invoice ${i}`),
      };
    default:
      return {
        filename: ATTACHMENT_NAMES.csv(i),
        contentType: 'text/csv',
        content: Buffer.from(`id,amount\n${i},${rng.int(10_000) / 100}\n`, 'utf8'),
      };
  }
}
