import { isAscii, isUtf8 } from 'node:buffer';
import { headerBlockEnd } from './header-fields.ts';
import { decoderFor, utf8UpToCut } from './part-preview.ts';

/**
 * The bytes of a message as its parser can read them. Old mailers, PHP scripts and spam kits write headers in raw
 * 8-bit bytes that are not UTF-8 (`Subject: Café` in ISO-8859-1, against RFC 5322); the parser would read them as
 * UTF-8 and show U+FFFD. Such a header is decoded as mail clients do (decision 0078) — in the charset the message
 * declares for its text (the first `charset=` of its first 64 KB: its own Content-Type or its first part's), else
 * windows-1252, the Western default — and re-encoded as UTF-8 (RFC 6532), which the parser reads. The body of a
 * text message that declares no charset is US-ASCII (RFC 2045 §5.2), which readers take as windows-1252 (the Encoding
 * Standard; the snippet from the server's BODYSTRUCTURE reads it so): re-encoded the same way. Any other message
 * comes back untouched, the same bytes.
 */
export function withUtf8Header(raw: Uint8Array): Uint8Array {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const end = headerBlockEnd(bytes);
  const header = bytes.subarray(0, end);
  const body = bytes.subarray(end);
  const headerOk = isAscii(header) || isUtf8(header);
  const bodyOk = isAscii(body) || utf8UpToCut(body) || !undeclaredText(header);
  if (headerOk && bodyOk) return raw;
  return Buffer.concat([
    headerOk ? header : Buffer.from(decoderFor(declaredCharset(bytes)).decode(header), 'utf8'),
    bodyOk ? body : Buffer.from(decoderFor('windows-1252').decode(body), 'utf8'),
  ]);
}

/** Whether a decoded text carries U+FFFD, the mark of bytes a decoder could not read (an IMAP ENVELOPE's, say). */
export function garbled(...texts: readonly (string | undefined)[]): boolean {
  return texts.some((t) => t?.includes('\uFFFD') === true);
}

/**
 * A single-part text message (or one without Content-Type) that declares no charset and whose bytes are the text
 * itself (no base64 or quoted-printable to undo first).
 */
function undeclaredText(header: Buffer): boolean {
  const text = header.toString('latin1');
  const type = /^content-type:([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)/im.exec(text)?.[1];
  if (type !== undefined && (!/^\s*text\//i.test(type) || /charset\s*=/i.test(type))) return false;
  return !/^content-transfer-encoding:\s*(base64|quoted-printable)/im.test(text);
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
