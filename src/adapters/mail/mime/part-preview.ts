import { isAscii, isUtf8 } from 'node:buffer';
import { htmlToText } from '../../../lib/html-to-text.ts';

/**
 * Decodes the first bytes of one body part into text for a snippet. The part arrives truncated (IMAP
 * `BODY.PEEK[1]<0.2048>`), so every step tolerates a cut: a half base64 quantum, a dangling `=` of
 * quoted-printable, a split multi-byte character, an unclosed `<style>`.
 */
export interface PartEncoding {
  /** `text/plain` or `text/html` */
  readonly contentType: string;
  readonly charset?: string | undefined;
  /** Content-Transfer-Encoding, e.g. `base64`, `quoted-printable`, `7bit` */
  readonly encoding?: string | undefined;
}

export function decodePartPreview(bytes: Uint8Array, part: PartEncoding): string {
  const decoded = decodeTransfer(
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    part.encoding,
  );
  const text = withoutTrailingReplacements(
    decoderFor(partCharset(part, decoded, 'cut'), decoded).decode(decoded),
  );
  // A cut inside an element or a tag is read as a browser reads the end of a document there: an unclosed <style>
  // or <script> is not text, nor is a half tag.
  return part.contentType.toLowerCase() === 'text/html' ? htmlToText(text) : text;
}

/** The text without the U+FFFD a cut character left at its end (walked back: `/\uFFFD+$/` is tried at each one). */
function withoutTrailingReplacements(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0xfffd) end--;
  return text.slice(0, end);
}

/** A part's bytes with its Content-Transfer-Encoding undone (base64, quoted-printable; anything else as it is). */
export function decodeTransfer(bytes: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'base64': {
      const clean = bytes.toString('latin1').replace(/[^A-Za-z0-9+/]/g, '');
      return Buffer.from(clean.slice(0, clean.length - (clean.length % 4)), 'base64');
    }
    case 'quoted-printable':
      return decodeQuotedPrintable(bytes);
    default:
      return bytes;
  }
}

const EQUALS = 0x3d;

/** The value of an ASCII hex digit, or -1. */
function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  return -1;
}

/** RFC 2045 §6.7; malformed escapes are kept literally, as most readers do. */
function decodeQuotedPrintable(bytes: Buffer): Buffer {
  const out = Buffer.allocUnsafe(bytes.length);
  let n = 0;
  const end = bytes.length;
  for (let i = 0; i < end; i++) {
    const b = bytes[i] ?? 0;
    if (b !== EQUALS) {
      out[n++] = b;
      continue;
    }
    if (i + 1 >= end) break; // cut right after "=" at the end of the fetched bytes
    const c1 = bytes[i + 1] ?? 0;
    if (c1 === 0x0a) {
      i += 1; // soft line break (bare LF)
      continue;
    }
    if (i + 2 >= end) break; // cut mid-escape
    const c2 = bytes[i + 2] ?? 0;
    if (c1 === 0x0d && c2 === 0x0a) {
      i += 2; // soft line break
      continue;
    }
    const hi = hexValue(c1);
    const lo = hexValue(c2);
    if (hi >= 0 && lo >= 0) {
      out[n++] = hi * 16 + lo;
      i += 2;
    } else out[n++] = b;
  }
  return out.subarray(0, n);
}

const decoders = new Map<string, TextDecoder>();

/**
 * A decoder for a MIME charset label (WHATWG labels cover the legacy ones: windows-125x, ISO-2022-JP, GBK…). A label
 * no decoder knows (`unknown-8bit`, which sendmail writes for 8-bit mail of no known charset, `x-unknown`, `ibm850`)
 * reads `bytes` as UTF-8 if they are, else as windows-1252, as readers fall back; UTF-8 without them.
 */
export function decoderFor(charset: string | undefined, bytes?: Uint8Array): TextDecoder {
  const label = (charset ?? 'utf-8').trim().toLowerCase().replace(/^"|"$/g, '') || 'utf-8';
  let decoder = decoders.get(label);
  if (decoder === undefined) {
    try {
      decoder = new TextDecoder(label);
    } catch {
      return decoderFor(bytes !== undefined && !utf8UpToCut(bytes) ? 'windows-1252' : 'utf-8');
    }
    if (decoders.size < 64) decoders.set(label, decoder);
  }
  return decoder;
}

/**
 * Labels of US-ASCII, which 8-bit bytes cannot be: an IMAP server's BODYSTRUCTURE reports `us-ascii` for a text part
 * that declares nothing (RFC 2045 §5.2's default), so it stands for "not said" here.
 */
export const ASCII_LABELS: ReadonlySet<string> = new Set([
  'us-ascii',
  'ascii',
  'ansi_x3.4-1968',
  'us',
  'iso646-us',
  'csascii',
]);

/**
 * The charset a text part is read in (decision 0105): the one it declares; for one that declares none (or US-ASCII)
 * but holds 8-bit bytes, UTF-8 if they are UTF-8 (text in another charset hardly ever is, and templates that name one
 * in their `<meta>` are often UTF-8), else an HTML part's own `<meta charset>` (in its first 1,024 bytes, as a
 * browser's prescan finds it), else windows-1252. `cut`: the bytes may end mid-character (the start of a part, read
 * up to a limit).
 */
export function partCharset(
  part: { readonly contentType: string; readonly charset?: string | undefined },
  bytes: Uint8Array,
  cut?: 'cut',
): string | undefined {
  const label = (part.charset ?? '').trim().toLowerCase().replace(/^"|"$/g, '');
  if (label !== '' && !ASCII_LABELS.has(label)) return label;
  if (isAscii(bytes) || (cut === 'cut' ? utf8UpToCut(bytes) : isUtf8(bytes))) return 'utf-8';
  return (part.contentType.toLowerCase() === 'text/html' ? metaCharset(bytes) : undefined) ?? 'windows-1252';
}

/** `<meta charset=…>` or `<meta http-equiv="Content-Type" content="…; charset=…">` in the first 1,024 bytes. */
const META_CHARSET = /<meta\s[^>]*?charset\s*=["'\s]*([a-z0-9_.:+-]{1,40})/i;

/**
 * An HTML document's own charset, as the HTML standard's prescan finds it (in its first 1,024 bytes), by the
 * Encoding Standard's name: UTF-16 reads as UTF-8 there (the bytes were ASCII-compatible enough to find the tag), and
 * x-user-defined as windows-1252; a label no decoder knows is no answer.
 */
export function metaCharset(bytes: Uint8Array): string | undefined {
  const start = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString(
    'latin1',
  );
  const label = META_CHARSET.exec(start.replace(/<!--[\s\S]*?-->/g, ''))?.[1];
  if (label === undefined) return undefined;
  let encoding: string;
  try {
    encoding = new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
  if (encoding.startsWith('utf-16')) return 'utf-8';
  return encoding === 'x-user-defined' ? 'windows-1252' : encoding;
}

/**
 * UTF-8, allowing for a character cut at the end (a part or a source read up to a limit): only the lead byte and the
 * continuation bytes of one unfinished character may be left off. (Leaving off any last three bytes took `Caf\xe9\r\n`,
 * Latin-1 with its line end, for UTF-8.)
 */
export function utf8UpToCut(bytes: Uint8Array): boolean {
  if (isUtf8(bytes)) return true;
  let lead = bytes.length - 1;
  while (lead >= 0 && bytes.length - lead <= 3 && ((bytes[lead] ?? 0) & 0xc0) === 0x80) lead--;
  const b = bytes[lead] ?? 0;
  const length = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
  return lead >= 0 && bytes.length - lead < length && isUtf8(bytes.subarray(0, lead));
}
