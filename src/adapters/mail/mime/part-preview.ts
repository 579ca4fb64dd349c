import { isUtf8 } from 'node:buffer';
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
  const text = decoderFor(part.charset, decoded)
    .decode(decoded)
    .replace(/\uFFFD+$/, '');
  // A cut inside an element or a tag is read as a browser reads the end of a document there: an unclosed <style>
  // or <script> is not text, nor is a half tag.
  return part.contentType.toLowerCase() === 'text/html' ? htmlToText(text) : text;
}

function decodeTransfer(bytes: Buffer, encoding: string | undefined): Buffer {
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

/** UTF-8, allowing for a character cut at the end (a part or a source read up to a limit). */
export function utf8UpToCut(bytes: Uint8Array): boolean {
  for (let cut = 0; cut <= 3 && cut < bytes.length; cut++)
    if (isUtf8(bytes.subarray(0, bytes.length - cut))) return true;
  return bytes.length === 0;
}
