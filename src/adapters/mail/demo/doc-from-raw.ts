import { newId } from '../../../lib/random.ts';
import { parseMessage } from '../mime/parse-message.ts';
import type { StoredDemoMessage } from './demo-mailbox.ts';

/** A raw RFC 5322 message (a draft we composed, a sent copy) as a demo document. */
export async function docFromRaw(
  raw: Uint8Array,
  date: Date,
  flags: readonly string[],
): Promise<StoredDemoMessage> {
  const p = await parseMessage(raw);
  return {
    messageId: p.messageId ?? `<${newId('m')}@demo.inbox-triage.test>`,
    ...(p.inReplyTo !== null && { inReplyTo: p.inReplyTo }),
    ...(p.references.length > 0 && { references: p.references }),
    from: p.from,
    to: p.to,
    cc: p.cc,
    replyTo: p.replyTo,
    subject: p.subject,
    text: p.text,
    ...(p.html !== null && { html: p.html }),
    attachments: p.attachments.map((a) => ({
      filename: a.filename ?? 'attachment',
      contentType: a.contentType,
      base64: Buffer.from(a.content).toString('base64'),
      inline: a.inline,
    })),
    ...(p.listId !== null && { listId: p.listId }),
    ...(p.listUnsubscribe !== null && { listUnsubscribe: p.listUnsubscribe }),
    listUnsubscribePost: p.listUnsubscribePost,
    unread: !flags.includes('\\Seen'),
    date: date.toISOString(),
  };
}
