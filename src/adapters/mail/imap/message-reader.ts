import type { Readable } from 'node:stream';
import type { ImapFlow } from 'imapflow';
import type { AttachmentContent, FullMessage } from '../../../core/mail/mail-types.ts';
import { htmlToText } from '../../../lib/html-to-text.ts';
import { parseMessage, snippet } from '../mime/parse-message.ts';
import { attachmentsOf, decodedSize, findPart } from './body-structure.ts';
import { SUMMARY_QUERY, toRemoteSummary } from './summary-fetch.ts';

/** Reads one message or one attachment. Both expect the folder's mailbox lock to be held by the caller. */

/** The whole message, parsed; undefined when the UID is not in the folder. */
export async function readFullMessage(client: ImapFlow, uid: number): Promise<FullMessage | undefined> {
  const m = await client.fetchOne(String(uid), { ...SUMMARY_QUERY, source: true }, { uid: true });
  if (m === false || m === undefined || m.source === undefined) return undefined;
  const parsed = await parseMessage(m.source);
  const text = parsed.text.trim() !== '' ? parsed.text : parsed.html === null ? '' : htmlToText(parsed.html);
  return {
    summary: toRemoteSummary(m, snippet(text)),
    cc: parsed.cc,
    replyTo: parsed.replyTo,
    inReplyTo: parsed.inReplyTo,
    references: parsed.references,
    text: parsed.text,
    html: parsed.html,
    attachments: attachmentsOf(m.bodyStructure),
    authenticationResults: parsed.authenticationResults,
  };
}

/** The message's bytes as stored; undefined when the UID is not in the folder or the message is too large. */
export async function readRawMessage(
  client: ImapFlow,
  uid: number,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const sized = await client.fetchOne(String(uid), { uid: true, size: true }, { uid: true });
  if (sized === false || sized === undefined || (sized.size ?? 0) > maxBytes) return undefined;
  const m = await client.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
  return m === false || m === undefined ? undefined : m.source;
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
  const m = await client.fetchOne(String(uid), { uid: true, bodyStructure: true }, { uid: true });
  const node = m === false || m === undefined ? undefined : findPart(m.bodyStructure, partId);
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
