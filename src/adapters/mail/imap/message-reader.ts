import type { Readable } from 'node:stream';
import type { FetchMessageObject, FetchQueryObject, ImapFlow } from 'imapflow';
import type { AttachmentContent, FullMessage } from '../../../core/mail/mail-types.ts';
import {
  fullMessage,
  parseMessage,
  readableText,
  snippet,
  WHOLE_MESSAGE_MAX_BYTES,
} from '../mime/parse-message.ts';
import { attachmentsOf, decodedSize, findPart, textParts } from './body-structure.ts';
import {
  garbledEnvelope,
  respell,
  SOURCE_SUMMARY_QUERY,
  SUMMARY_QUERY,
  summaryFromSource,
  toRemoteSummary,
} from './summary-fetch.ts';
import { bytesOf } from './fetched-bytes.ts';

/** Reads one message or one attachment. Both expect the folder's mailbox lock to be held by the caller. */

/**
 * One message by UID, or undefined. imapflow's fetchOne returns the first untagged FETCH of the command, and a server
 * may send unsolicited ones for other messages of the open folder (flags another client changed) before the answer:
 * only the response carrying this UID and the asked-for items (`has`) counts.
 */
export async function fetchByUid(
  client: ImapFlow,
  uid: number,
  query: FetchQueryObject,
  has: (m: FetchMessageObject) => boolean,
): Promise<FetchMessageObject | undefined> {
  let found: FetchMessageObject | undefined;
  for await (const m of client.fetch(String(uid), query, { uid: true }))
    if (found === undefined && m.uid === uid && has(m)) found = m;
  return found;
}

/** The message, parsed; undefined when the UID is not in the folder. */
export async function readFullMessage(client: ImapFlow, uid: number): Promise<FullMessage | undefined> {
  // One round trip for most mail: the summary and at most WHOLE_MESSAGE_MAX_BYTES of the source.
  const head = await fetchByUid(
    client,
    uid,
    { ...SUMMARY_QUERY, source: { maxLength: WHOLE_MESSAGE_MAX_BYTES } },
    (m) => m.source !== undefined && m.envelope !== undefined,
  );
  const start = bytesOf(head?.source);
  if (head === undefined || start === undefined) return readWithoutStructure(client, uid);
  // A message of one part is its own text: what is past its first WHOLE_MESSAGE_MAX_BYTES is never shown (a body
  // is cut at 50,000 characters), so those bytes, read already, are all it needs.
  const whole = (head.size ?? 0) <= WHOLE_MESSAGE_MAX_BYTES || head.bodyStructure?.childNodes === undefined;
  const source = whole ? start : await textOnly(client, uid, textParts(head.bodyStructure));
  if (source === undefined) return undefined;
  const parsed = await parseMessage(source);
  const summary = toRemoteSummary(head, snippet(readableText(parsed)));
  return fullMessage(
    // What the ENVELOPE could not spell, the parser read from the source (decision 0078).
    garbledEnvelope(head) ? respell(summary, parsed) : summary,
    parsed,
    attachmentsOf(head.bodyStructure),
  );
}

/**
 * A message whose structure imapflow will not parse (see SOURCE_SUMMARY_QUERY), or undefined when the UID is gone:
 * read from at most WHOLE_MESSAGE_MAX_BYTES of its source. Its attachments are not listed, since a part is fetched
 * by its place in that structure; the summary says whether the bytes read hold any.
 */
async function readWithoutStructure(client: ImapFlow, uid: number): Promise<FullMessage | undefined> {
  const m = await fetchByUid(
    client,
    uid,
    { ...SOURCE_SUMMARY_QUERY, source: { maxLength: WHOLE_MESSAGE_MAX_BYTES } },
    (r) => r.source !== undefined,
  );
  const source = bytesOf(m?.source);
  if (m === undefined || source === undefined) return undefined;
  const parsed = await parseMessage(source);
  return fullMessage(summaryFromSource(m, parsed), parsed, []);
}

/**
 * A stand-in for a large multipart message: its own header block, with its text parts (each with its MIME header,
 * still transfer-encoded) as the alternatives of a multipart of our own boundary — what the parser needs for the headers and the
 * text, without the attachments.
 */
async function textOnly(
  client: ImapFlow,
  uid: number,
  parts: readonly string[],
): Promise<Buffer | undefined> {
  const m = await fetchByUid(
    client,
    uid,
    {
      uid: true,
      headers: true,
      // Each text part up to WHOLE_MESSAGE_MAX_BYTES: an HTML part with its images inlined runs to megabytes.
      bodyParts: parts.flatMap((p) => [`${p}.MIME`, { key: p, maxLength: WHOLE_MESSAGE_MAX_BYTES }]),
    },
    (r) => r.bodyParts !== undefined && r.headers !== undefined,
  );
  const headerBlock = bytesOf(m?.headers);
  if (m?.bodyParts === undefined || headerBlock === undefined) return undefined;
  const got = (k: string) =>
    bytesOf(m.bodyParts?.get(k.toLowerCase())) ?? bytesOf(m.bodyParts?.get(k)) ?? Buffer.alloc(0);
  const boundary = `inbox-triage-text-${String(uid)}`;
  const header = withoutContentFields(headerBlock.toString('latin1'));
  const pieces = [
    Buffer.from(`${header}Content-Type: multipart/alternative; boundary="${boundary}"\r\n\r\n`, 'latin1'),
    ...parts.flatMap((p) => [
      Buffer.from(`--${boundary}\r\n`),
      got(`${p}.MIME`),
      got(p),
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${boundary}--\r\n`),
  ];
  return Buffer.concat(pieces);
}

/** A header block without its Content-Type and Content-Transfer-Encoding fields (folded lines included), no blank line. */
function withoutContentFields(block: string): string {
  const blank = block.search(/\r?\n\r?\n/);
  const fields = (blank < 0 ? block : block.slice(0, blank)).split(/\r?\n(?![ \t])/);
  return fields
    .filter((f) => f.trim() !== '' && !/^content-(type|transfer-encoding)\s*:/i.test(f))
    .map((f) => `${f}\r\n`)
    .join('');
}

/** The message's bytes as stored; undefined when the UID is not in the folder or the message is too large. */
export async function readRawMessage(
  client: ImapFlow,
  uid: number,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const sized = await fetchByUid(client, uid, { uid: true, size: true }, (m) => m.size !== undefined);
  if (sized === undefined || (sized.size ?? 0) > maxBytes) return undefined;
  return bytesOf(
    (await fetchByUid(client, uid, { uid: true, source: true }, (m) => m.source !== undefined))?.source,
  );
}

/** A stream the consumer never reads must not hold the folder lock forever. */
const ABANDONED_AFTER_MS = 60_000;

/**
 * One body part, transfer-decoded by imapflow (base64, quoted-printable). imapflow fetches the part in chunks
 * as the stream is read, so the lock stays held until the stream closes — otherwise another command could
 * SELECT a different folder mid-download — and `release` runs exactly then.
 */
export async function openPart(
  client: ImapFlow,
  uid: number,
  partId: string,
  release: () => void,
): Promise<AttachmentContent | undefined> {
  const m = await fetchByUid(
    client,
    uid,
    { uid: true, bodyStructure: true },
    (r) => r.bodyStructure !== undefined,
  );
  const node = m === undefined ? undefined : findPart(m.bodyStructure, partId);
  if (node === undefined || node.type.toLowerCase().startsWith('multipart/')) return undefined;
  const download = await client.download(String(uid), partId, { uid: true });
  if (download.content === undefined) return undefined;
  const stream = download.content;
  const timer = setTimeout(
    () => stream.destroy(new Error('attachment stream abandoned')),
    ABANDONED_AFTER_MS,
  );
  stream.once('close', () => {
    clearTimeout(timer);
    release();
  });
  const size = decodedSize(node);
  // imapflow re-encodes inline text in a legacy charset to UTF-8, which changes the byte count.
  const recoded =
    download.meta.charset === 'utf-8' &&
    !/^(utf-?8|us-ascii|ascii)$/i.test(node.parameters?.charset ?? 'utf-8');
  const name = download.meta.filename ?? node.dispositionParameters?.filename ?? node.parameters?.name;
  return {
    filename: name ?? `attachment-${partId}`,
    contentType: download.meta.contentType ?? node.type.toLowerCase(),
    size: size.exact && !recoded ? size.size : null,
    content: guarded(stream, timer),
  };
}

async function* guarded(stream: Readable, idle: NodeJS.Timeout): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of stream) {
      idle.refresh();
      yield chunk as Uint8Array;
    }
  } finally {
    stream.destroy(); // a consumer that stops early still ends the download and frees the lock
  }
}
