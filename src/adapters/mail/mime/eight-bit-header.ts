import { isAscii, isUtf8 } from 'node:buffer';
import { CONTENT_TYPE_FIELD, headerBlockEnd } from './header-fields.ts';
import { decoderFor, partCharset } from './part-preview.ts';

/**
 * The bytes of a message as its parser can read them. Old mailers, PHP scripts and spam kits write headers in raw
 * 8-bit bytes that are not UTF-8 (`Subject: Café` in ISO-8859-1, against RFC 5322); the parser would read them as
 * UTF-8 and show U+FFFD. Such a header is decoded as mail clients do (decision 0078) — in the charset the message
 * declares for its text (the first `charset=` of its first 64 KB: its own Content-Type or its first part's), else
 * windows-1252, the Western default — and re-encoded as UTF-8 (RFC 6532), which the parser reads. The 8-bit body of
 * a single-part text message that declares no charset (or US-ASCII) is read as its snippet is (decision 0105): UTF-8
 * if it is, else an HTML body's own `<meta charset>`, else windows-1252; re-encoded the same way. Any other message
 * comes back untouched, the same bytes.
 */
export function withUtf8Header(raw: Uint8Array): Uint8Array {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const end = headerBlockEnd(bytes);
  const header = bytes.subarray(0, end);
  const body = bytes.subarray(end);
  const headerOk = isAscii(header) || isUtf8(header);
  const text = isAscii(body) ? undefined : undeclaredText(header);
  // Read in what its bytes say (decision 0105): UTF-8 if they are, else its HTML's own <meta charset>, else
  // windows-1252; a US-ASCII label, which they cannot be, is then made UTF-8's.
  const bodyCharset = text === undefined ? 'utf-8' : partCharset({ contentType: text.type }, body, 'cut');
  const relabel = text?.labelled === true;
  const bodyOk = bodyCharset === 'utf-8' && !relabel;
  if (headerOk && bodyOk) return raw;
  const head = headerOk ? header : Buffer.from(decoderFor(declaredCharset(bytes)).decode(header), 'utf8');
  return Buffer.concat([
    relabel ? labelledUtf8(head) : head,
    bodyCharset === 'utf-8' ? body : Buffer.from(decoderFor(bodyCharset).decode(body), 'utf8'),
  ]);
}

/** Whether a decoded text carries U+FFFD, the mark of bytes a decoder could not read (an IMAP ENVELOPE's, say). */
export function garbled(...texts: readonly (string | undefined)[]): boolean {
  return texts.some((t) => t?.includes('\uFFFD') === true);
}

/**
 * A single-part text message (or one without Content-Type: text/plain) that declares no charset, or US-ASCII (which
 * 8-bit bytes cannot be), and whose bytes are the text itself (no base64 or quoted-printable to undo first): its type,
 * and whether it has that label. Undefined for any other message.
 */
function undeclaredText(header: Buffer): { type: string; labelled: boolean } | undefined {
  const text = header.toString('latin1');
  if (/^content-transfer-encoding:\s*(base64|quoted-printable)/im.test(text)) return undefined;
  const field = CONTENT_TYPE_FIELD.exec(text)?.[1];
  if (field === undefined) return { type: 'text/plain', labelled: false };
  const type = /^\s*(text\/[a-z0-9.+-]+)/i.exec(field)?.[1]?.toLowerCase();
  if (type === undefined) return undefined;
  const label = CHARSET.exec(field)?.[1]?.toLowerCase();
  if (label === undefined) return { type, labelled: false };
  return label === 'us-ascii' || label === 'ascii' ? { type, labelled: true } : undefined;
}

/** The header with its Content-Type's charset said to be UTF-8 (the body it heads was re-encoded so). */
function labelledUtf8(header: Buffer): Buffer {
  const text = header.toString('latin1');
  const m = CONTENT_TYPE_FIELD.exec(text);
  if (m === null) return header;
  const field = m[0].replace(/charset\s*=\s*("?)(us-ascii|ascii)\1/i, 'charset=utf-8');
  return Buffer.from(text.slice(0, m.index) + field + text.slice(m.index + m[0].length), 'latin1');
}

const CHARSET = /charset\s*=\s*"?([A-Za-z0-9_.:+-]{1,40})/i;

/**
 * Whether an encoding reads a header's ASCII as ASCII, so that only its 8-bit bytes change: not UTF-8 (which would
 * read the header as it already failed to), not UTF-16, not ISO-2022-JP (an escape sequence would swallow the header
 * lines after it), not `replacement` (what ISO-2022-KR and HZ map to: the whole header as one U+FFFD).
 */
const READS_ASCII_AS_ASCII = (encoding: string): boolean =>
  !['utf-8', 'iso-2022-jp', 'replacement'].includes(encoding) && !encoding.startsWith('utf-16');

/**
 * The charset the message declares, as the Encoding Standard names it (which reads us-ascii and latin1 as
 * windows-1252); windows-1252 when it declares none, one no decoder knows, or one that does not read ASCII as ASCII.
 */
function declaredCharset(bytes: Buffer): string {
  const label = CHARSET.exec(bytes.subarray(0, 64 * 1024).toString('latin1'))?.[1];
  if (label === undefined) return 'windows-1252';
  try {
    const encoding = new TextDecoder(label).encoding;
    return READS_ASCII_AS_ASCII(encoding) ? encoding : 'windows-1252';
  } catch {
    return 'windows-1252';
  }
}
