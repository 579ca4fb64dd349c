import { messageDate } from '../../../core/mail/message-date.ts';
import type { gmail_v1 } from '@googleapis/gmail';
import PostalMime from 'postal-mime';
import type { AttachmentInfo, FlagState, RemoteSummary } from '../../../core/mail/mail-types.ts';
import { decodeEntities } from '../../../lib/html-to-text.ts';
import { parseMessage, snippet as previewOf } from '../mime/parse-message.ts';
import { decoderFor, partCharset } from '../mime/part-preview.ts';
import type { GmailFolders } from './gmail-folders.ts';
import { positionAt } from '../provider-api.ts';

/** The header fields a summary needs, asked for with `format=metadata` (Gmail returns only these). */
export const SUMMARY_HEADERS = [
  'From',
  'To',
  'Subject',
  'Date',
  'Message-ID',
  'References',
  'In-Reply-To',
  'List-Id',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
] as const;

/** Gmail has no per-folder numbers: a message's place in a label is its internal date (see positionAt). */
export function positionOf(m: Pick<gmail_v1.Schema$Message, 'id' | 'internalDate'>): number {
  return positionAt(Number(m.internalDate ?? '0'), m.id ?? '');
}

/** The header block Gmail returned, rebuilt as RFC 5322 so the one MIME parser decodes it (RFC 2047, groups). */
function headerBlock(headers: readonly gmail_v1.Schema$MessagePartHeader[] | undefined): string {
  let block = '';
  for (const h of headers ?? []) {
    const name = h.name ?? '';
    if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name)) continue;
    block += `${name}: ${(h.value ?? '').replace(/[\r\n]+/g, ' ')}\r\n`;
  }
  return `${block}\r\n`;
}

export function flagStateOf(
  ref: string,
  labelIds: readonly string[] | null | undefined,
  folders: GmailFolders,
): FlagState {
  const ids = labelIds ?? [];
  return {
    ref,
    unread: ids.includes('UNREAD'),
    starred: ids.includes('STARRED'),
    labels: folders.userLabelNames(ids),
  };
}

/** A summary from a `format=metadata` (or `full`) message resource. */
export async function summaryOf(m: gmail_v1.Schema$Message, folders: GmailFolders): Promise<RemoteSummary> {
  const parsed = await parseMessage(headerBlock(m.payload?.headers ?? undefined));
  const ref = m.id ?? '';
  const internal = new Date(Number(m.internalDate ?? '0'));
  return {
    ...flagStateOf(ref, m.labelIds, folders),
    position: positionOf(m),
    threadId: m.threadId ?? null,
    internetMessageId: parsed.messageId,
    subject: parsed.subject,
    from: parsed.from,
    to: parsed.to,
    // Gmail's snippet is HTML-escaped text of the body's start.
    snippet: previewOf(decodeEntities(m.snippet ?? '')),
    date: messageDate(parsed.date ?? undefined, m.internalDate == null ? undefined : internal),
    hasAttachments: hasAttachments(m.payload),
    size: m.sizeEstimate ?? 0,
    listId: parsed.listId,
    listUnsubscribe: parsed.listUnsubscribe,
    listUnsubscribePost: parsed.listUnsubscribePost,
  };
}

/** `metadata` gives only the top part's type: multipart/mixed is what carries attachments. */
function hasAttachments(payload: gmail_v1.Schema$MessagePart | undefined): boolean {
  if (payload === undefined) return false;
  if (payload.parts !== undefined) return walk(payload).some((p) => isAttachment(p));
  return (payload.mimeType ?? '').toLowerCase() === 'multipart/mixed';
}

function walk(part: gmail_v1.Schema$MessagePart): gmail_v1.Schema$MessagePart[] {
  return [part, ...(part.parts ?? []).flatMap(walk)];
}

function headerOf(part: gmail_v1.Schema$MessagePart, name: string): string | undefined {
  return part.headers?.find((h) => h.name?.toLowerCase() === name)?.value ?? undefined;
}

function isAttachment(p: gmail_v1.Schema$MessagePart): boolean {
  return (p.filename ?? '') !== '' || (p.body?.attachmentId ?? null) !== null;
}

/** Text, HTML and attachments of a `format=full` resource; the header fields come from `summaryOf`'s parse. */
export async function contentOf(m: gmail_v1.Schema$Message): Promise<{
  text: string;
  html: string | null;
  attachments: AttachmentInfo[];
  headers: Awaited<ReturnType<typeof parseMessage>>;
}> {
  const headers = await parseMessage(headerBlock(m.payload?.headers ?? undefined));
  const parts = m.payload === undefined ? [] : walk(m.payload);
  const body = (type: string): string | null => {
    const p = parts.find(
      (x) => (x.mimeType ?? '').toLowerCase() === type && !isAttachment(x) && x.body?.data != null,
    );
    if (p === undefined) return null;
    const charset = /charset="?([^";\s]+)"?/i.exec(headerOf(p, 'content-type') ?? '')?.[1];
    const bytes = Buffer.from(p.body?.data ?? '', 'base64url');
    return decoderFor(partCharset({ contentType: type, charset }, bytes), bytes).decode(bytes);
  };
  const attachments: AttachmentInfo[] = [];
  for (const p of parts.filter(isAttachment))
    attachments.push({
      partId: p.partId ?? '',
      filename: await filenameOf(p),
      contentType: (p.mimeType ?? 'application/octet-stream').toLowerCase(),
      size: p.body?.size ?? 0,
      inline: /^\s*inline/i.test(headerOf(p, 'content-disposition') ?? ''),
    });
  return { text: body('text/plain') ?? '', html: body('text/html'), attachments, headers };
}

/**
 * An attachment's file name: Gmail's decoded `filename`, else decoded from the part's own Content-Disposition /
 * Content-Type by the MIME parser (RFC 2231 continuations and charsets, RFC 2047 words).
 */
export async function filenameOf(part: gmail_v1.Schema$MessagePart): Promise<string> {
  if (part.filename != null && part.filename !== '') return part.filename;
  const fields = (part.headers ?? []).filter((h) =>
    ['content-type', 'content-disposition'].includes((h.name ?? '').toLowerCase()),
  );
  if (fields.length === 0) return '';
  const parsed = await PostalMime.parse(`${headerBlock(fields)}x`, { attachmentEncoding: 'arraybuffer' });
  return parsed.attachments[0]?.filename ?? '';
}

/** The part of a `full` resource with this part id (attachments are opened by it). */
export function partById(
  m: gmail_v1.Schema$Message,
  partId: string,
): gmail_v1.Schema$MessagePart | undefined {
  return m.payload === undefined ? undefined : walk(m.payload).find((p) => p.partId === partId);
}
