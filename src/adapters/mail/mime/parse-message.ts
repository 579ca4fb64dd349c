import PostalMime from 'postal-mime';
import type { Address as PostalAddress, Email } from 'postal-mime';
import type { Address } from '../../../core/messages/message.ts';
import type { AttachmentInfo, FullMessage, RemoteSummary } from '../../../core/mail/mail-types.ts';
import { htmlToText } from '../../../lib/html-to-text.ts';
import { withUtf8Header } from './eight-bit-header.ts';
import { withPartCharsets } from './part-charsets.ts';
import { headerBlockEnd, isOneClick, listIdOf, messageIds } from './header-fields.ts';
import { readAgainAsUtf8 } from './unknown-charset.ts';

/**
 * Parses raw RFC 5322 messages for every mail adapter (IMAP source, Gmail `raw`, Graph MIME, the demo store).
 * postal-mime decodes RFC 2047 encoded words, RFC 2231 parameters and legacy charsets (windows-125x,
 * ISO-8859-x, ISO-2022-JP…), and a header in raw 8-bit bytes not UTF-8 is read as mail clients read it
 * (eight-bit-header.ts); nothing here calls `toString()` on raw bytes.
 */

export interface ParsedAttachment {
  /** Decoded file name; null when the part names none. */
  readonly filename: string | null;
  readonly contentType: string;
  /** `inline` when the part says so or the HTML references it by Content-ID. */
  readonly inline: boolean;
  readonly contentId: string | null;
  readonly content: Uint8Array;
}

export interface ParsedMessage {
  readonly subject: string;
  /** `{ address: '', name: '' }` when the message has no usable From. */
  readonly from: Address;
  readonly to: readonly Address[];
  readonly cc: readonly Address[];
  readonly replyTo: readonly Address[];
  /** The Date header; null when missing or unparseable (callers fall back to the delivery date). */
  readonly date: Date | null;
  readonly messageId: string | null;
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
  /** The text/plain body; '' when the message only has HTML (callers convert `html` themselves). */
  readonly text: string;
  readonly html: string | null;
  /** RFC 2919 list identifier without brackets (see listIdOf). */
  readonly listId: string | null;
  /** The List-Unsubscribe value as sent, unfolded: `<https://…>, <mailto:…>` (RFC 2369). */
  readonly listUnsubscribe: string | null;
  /** RFC 8058 one-click is announced. */
  readonly listUnsubscribePost: boolean;
  readonly attachments: readonly ParsedAttachment[];
  /** The first (topmost) Authentication-Results header, unfolded. */
  readonly authenticationResults: string | null;
}

const NO_ADDRESS: Address = { address: '', name: '' };

export async function parseMessage(raw: Uint8Array | ArrayBuffer | string): Promise<ParsedMessage> {
  const bytes = raw instanceof ArrayBuffer ? new Uint8Array(raw) : raw;
  const email = await parsedOrHeaderOnly(
    typeof bytes === 'string' ? bytes : withUtf8Header(withPartCharsets(bytes)),
  );
  const header = (key: string): string | null => {
    const value = email.headers.find((h) => h.key === key)?.value.trim();
    return value === undefined || value === '' ? null : value;
  };
  const date = email.date === undefined ? null : new Date(email.date);
  return {
    subject: email.subject ?? '',
    from: addresses(email.from === undefined ? [] : [email.from])[0] ?? NO_ADDRESS,
    to: addresses(email.to),
    cc: addresses(email.cc),
    replyTo: addresses(email.replyTo),
    date: date === null || Number.isNaN(date.getTime()) ? null : date,
    messageId: messageIds(email.messageId)[0] ?? nonEmpty(email.messageId),
    inReplyTo: messageIds(email.inReplyTo)[0] ?? nonEmpty(email.inReplyTo),
    references: messageIds(email.references),
    text: readAgainAsUtf8(email.text ?? '', bytes),
    html: email.html === undefined ? null : readAgainAsUtf8(email.html, bytes),
    listId: listIdOf(header('list-id')),
    listUnsubscribe: header('list-unsubscribe'),
    listUnsubscribePost: isOneClick(header('list-unsubscribe-post')),
    attachments: attachments(email),
    authenticationResults: header('authentication-results'),
  };
}

/**
 * Past this size a message is read without its attachments — its header block and its text parts only from an IMAP
 * server, its first bytes from Microsoft Graph (whose MIME puts the text first) — so a 25 MB attachment is never
 * held in memory to show the message's text (docs/benchmarks.md). Below it, the whole source is parsed, as every
 * client would.
 */
export const WHOLE_MESSAGE_MAX_BYTES = 2 * 1024 * 1024;

const PARSE = { attachmentEncoding: 'arraybuffer' } as const;

/** At most this much of a header block is read when the message around it cannot be (see parsedOrHeaderOnly). */
const HEADER_ONLY_MAX_BYTES = 1024 * 1024;

/**
 * The message parsed, or, when the parser refuses it, its own header block parsed alone: who sent it, to whom, when,
 * its subject, ids and list headers, with no body and no attachments. postal-mime throws on a message nested more
 * than 256 multiparts deep or carrying more than 2 MB of header lines over all its parts (its guards against a
 * runaway structure); one such message, which any stranger can send, failed the sync of its whole folder — every
 * later message there unlisted, for good — and every read of it (decision 0097).
 */
async function parsedOrHeaderOnly(input: Uint8Array | string): Promise<Email> {
  try {
    return await PostalMime.parse(input, PARSE);
  } catch {
    const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input);
    const head = bytes.subarray(0, Math.min(headerBlockEnd(bytes), HEADER_ONLY_MAX_BYTES));
    try {
      return await PostalMime.parse(Buffer.concat([head, Buffer.from('\r\n\r\n')]), PARSE);
    } catch {
      return PostalMime.parse('', PARSE);
    }
  }
}

/** The text a person reads of a message: its plain part, else its HTML turned into text. */
export function readableText(parsed: Pick<ParsedMessage, 'text' | 'html'>): string {
  if (parsed.text.trim() !== '') return parsed.text;
  return parsed.html === null ? '' : htmlToText(parsed.html);
}

/** A message read whole: its summary, what the parser found in its bytes, and its attachments as the provider lists them. */
export function fullMessage(
  summary: RemoteSummary,
  parsed: ParsedMessage,
  attachments: readonly AttachmentInfo[],
): FullMessage {
  return {
    summary,
    cc: parsed.cc,
    replyTo: parsed.replyTo,
    inReplyTo: parsed.inReplyTo,
    references: parsed.references,
    text: parsed.text,
    html: parsed.html,
    attachments,
    authenticationResults: parsed.authenticationResults,
  };
}

function nonEmpty(value: string | undefined): string | null {
  const v = value?.trim();
  return v === undefined || v === '' ? null : v;
}

/** Flattens RFC 5322 groups (`Team: a@x, b@y;`) into their members. */
function addresses(list: readonly PostalAddress[] | undefined): Address[] {
  const out: Address[] = [];
  for (const a of list ?? []) {
    if (a.group !== undefined) out.push(...a.group.map((m) => ({ address: m.address, name: m.name })));
    else out.push({ address: a.address, name: a.name });
  }
  return out;
}

function attachments(email: Email): ParsedAttachment[] {
  return email.attachments.map((a) => ({
    filename: a.filename,
    contentType: a.mimeType,
    inline: a.disposition === 'inline' || a.related === true,
    contentId: a.contentId ?? null,
    content: typeof a.content === 'string' ? new TextEncoder().encode(a.content) : new Uint8Array(a.content),
  }));
}

/** Lines that only introduce a quote: "On Mon, 6 Jan 2025, Bob <bob@x> wrote:" and its common translations. */
const ATTRIBUTION = /\b(wrote|writes|a écrit|schrieb|escribió|scrisse|napisał|skrev|schreef)\s*:\s*$/i;

/**
 * A one-line preview of a body: quoted replies (`>` lines and their attribution line), the signature after
 * `-- ` (RFC 3676 §4.3) and forwarded-original separators are left out; whitespace is collapsed; at most `max`
 * characters, cut at a word boundary with an ellipsis. Falls back to the whole text when nothing else is left.
 */
export function snippet(text: string, max = 200): string {
  const source = text.length > max * 50 ? text.slice(0, max * 50) : text; // bound the work on huge bodies
  const kept: string[] = [];
  for (const line of source.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    if (
      line === '-- ' ||
      line === '--' ||
      /^-{2,}\s*(Original Message|Forwarded message)\s*-{2,}$/i.test(trimmed)
    )
      break;
    if (trimmed.startsWith('>')) {
      const last = kept.length - 1;
      if (last >= 0 && ATTRIBUTION.test(kept[last] ?? '')) kept.pop();
      continue;
    }
    kept.push(trimmed);
  }
  const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();
  const body = collapse(kept.join(' '));
  return truncate(body === '' ? collapse(source) : body, max);
}

function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = s.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  if (space > max * 0.6) cut = cut.slice(0, space);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1); // never split a surrogate pair
  return `${cut.trimEnd()}…`;
}
