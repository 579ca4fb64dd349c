/**
 * Byte-level MIME helpers for message-factory.ts: legacy charset encoders,
 * RFC 2047 encoded words, quoted-printable, base64 and RFC 5322 dates.
 *
 * Node ships decoders for legacy charsets (TextDecoder, full ICU) but no
 * encoders, and the rig may only use the project's own dependencies, so the
 * encoders are built here by inverting TextDecoder once per charset.
 */

export type Charset = 'utf-8' | 'iso-8859-1' | 'windows-1252' | 'iso-2022-jp';

const ESC_JIS0208 = [0x1b, 0x24, 0x42]; // ESC $ B
const ESC_ASCII = [0x1b, 0x28, 0x42]; // ESC ( B

let cp1252: Map<string, number> | undefined;
let jis0208: Map<string, [number, number]> | undefined;

function cp1252Table(): Map<string, number> {
  if (cp1252) return cp1252;
  const decoder = new TextDecoder('windows-1252');
  cp1252 = new Map();
  for (let b = 0x80; b <= 0xff; b++) cp1252.set(decoder.decode(Uint8Array.of(b)), b);
  return cp1252;
}

function jisTable(): Map<string, [number, number]> {
  if (jis0208) return jis0208;
  const decoder = new TextDecoder('iso-2022-jp');
  jis0208 = new Map();
  for (let hi = 0x21; hi <= 0x7e; hi++) {
    for (let lo = 0x21; lo <= 0x7e; lo++) {
      const ch = decoder.decode(Uint8Array.of(...ESC_JIS0208, hi, lo, ...ESC_ASCII));
      if (ch.length === 1 && ch !== '\uFFFD' && !jis0208.has(ch)) jis0208.set(ch, [hi, lo]);
    }
  }
  return jis0208;
}

function unencodable(ch: string, charset: Charset): Error {
  return new Error(`Character ${JSON.stringify(ch)} cannot be encoded in ${charset}`);
}

/** Encodes text in one of the supported charsets; throws on unmappable characters. */
export function encodeCharset(text: string, charset: Charset): Buffer {
  if (charset === 'utf-8') return Buffer.from(text, 'utf8');
  const out: number[] = [];
  if (charset === 'iso-2022-jp') {
    // Stateful: switch to JIS X 0208 for Japanese runs, always end in ASCII mode.
    let jis = false;
    for (const ch of text) {
      const code = ch.codePointAt(0) ?? 0;
      if (code < 0x80) {
        if (jis) out.push(...ESC_ASCII);
        jis = false;
        out.push(code);
        continue;
      }
      const pair = jisTable().get(ch);
      if (!pair) throw unencodable(ch, charset);
      if (!jis) out.push(...ESC_JIS0208);
      jis = true;
      out.push(...pair);
    }
    if (jis) out.push(...ESC_ASCII);
    return Buffer.from(out);
  }
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x80 || (charset === 'iso-8859-1' && code <= 0xff)) out.push(code);
    else {
      const b = charset === 'windows-1252' ? cp1252Table().get(ch) : undefined;
      if (b === undefined) throw unencodable(ch, charset);
      out.push(b);
    }
  }
  return Buffer.from(out);
}

export function isAscii(text: string): boolean {
  return /^[\x20-\x7e]*$/.test(text);
}

/**
 * RFC 2047 encoded words for a header value, each ≤ 75 chars and each holding
 * whole characters (a multi-byte character must not straddle two words).
 * UTF-8 and ISO-2022-JP use B encoding, the Latin charsets Q encoding.
 */
function encodeWords(text: string, charset: Charset): string[] {
  const useQ = charset === 'iso-8859-1' || charset === 'windows-1252';
  const prefix = `=?${charset.toUpperCase()}?${useQ ? 'Q' : 'B'}?`;
  const budget = 75 - prefix.length - 2;
  const words: string[] = [];
  let chunk = '';
  const render = (s: string): string => {
    const bytes = encodeCharset(s, charset);
    return useQ ? qEncode(bytes) : bytes.toString('base64');
  };
  for (const ch of text) {
    if (chunk && render(chunk + ch).length > budget) {
      words.push(`${prefix}${render(chunk)}?=`);
      chunk = '';
    }
    chunk += ch;
  }
  if (chunk) words.push(`${prefix}${render(chunk)}?=`);
  return words;
}

function qEncode(bytes: Buffer): string {
  let out = '';
  for (const b of bytes) {
    if (b === 0x20) out += '_';
    else if (/[A-Za-z0-9!*+\-/]/.test(String.fromCharCode(b))) out += String.fromCharCode(b);
    else out += `=${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * An unstructured header value (Subject, display names): ASCII stays as is;
 * otherwise leading ASCII words stay readable ("Re: ") and the rest becomes
 * encoded words, folded one per line.
 */
export function encodeHeaderText(text: string, charset: Charset = 'utf-8'): string {
  if (isAscii(text)) return text;
  const firstNonAscii = Array.from(text).findIndex((ch) => !isAscii(ch));
  const cut = text.lastIndexOf(' ', firstNonAscii) + 1;
  const plain = text.slice(0, cut);
  return plain + encodeWords(text.slice(cut), charset).join('\r\n ');
}

/** Quoted-printable (RFC 2045 §6.7) with CRLF line breaks and 76-char lines. */
export function quotedPrintable(bytes: Buffer): string {
  const lines: string[] = [];
  for (const line of splitLines(bytes)) {
    let out = '';
    let width = 0;
    for (let i = 0; i < line.length; i++) {
      const b = line[i] ?? 0;
      const last = i === line.length - 1;
      const literal = (b >= 33 && b <= 126 && b !== 61) || ((b === 32 || b === 9) && !last);
      const token = literal ? String.fromCharCode(b) : `=${b.toString(16).toUpperCase().padStart(2, '0')}`;
      if (width + token.length > 75) {
        out += '=\r\n';
        width = 0;
      }
      out += token;
      width += token.length;
    }
    lines.push(out);
  }
  return lines.join('\r\n');
}

function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      const end = i > start && bytes[i - 1] === 0x0d ? i - 1 : i;
      lines.push(bytes.subarray(start, end));
      start = i + 1;
    }
  }
  lines.push(bytes.subarray(start));
  return lines;
}

/** Base64 in 76-char lines, as MIME requires. */
export function base64Lines(bytes: Buffer): string {
  return (bytes.toString('base64').match(/.{1,76}/g) ?? []).join('\r\n');
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** RFC 5322 date-time with a numeric zone, e.g. "Tue, 04 Mar 2025 09:15:02 +0900". */
export function rfc5322Date(date: Date, offsetMinutes = 0): string {
  const local = new Date(date.getTime() + offsetMinutes * 60_000);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return (
    `${DAYS[local.getUTCDay()] ?? ''}, ${pad(local.getUTCDate())} ${MONTHS[local.getUTCMonth()] ?? ''} ` +
    `${local.getUTCFullYear()} ${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())} ` +
    `${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`
  );
}
