import { isAscii, isUtf8 } from 'node:buffer';

/**
 * A body the parser read as windows-1252 because its part declares a charset label no decoder knows
 * (`unknown-8bit`, `x-unknown`, `ibm850`), read again as UTF-8 if its bytes are UTF-8 — as `decoderFor` reads the
 * same part's snippet, and as readers fall back. postal-mime falls back to windows-1252 whatever the bytes, so the
 * UTF-8 that most such mail is today showed as `CafÃ©` in the message while its snippet said `Café`.
 *
 * windows-1252 (as the Encoding Standard decodes it) maps every byte to a character, so its bytes are recovered
 * from the text exactly; a text with any character outside it was not (or not only) read that way and is left as it
 * is. The message's own bytes are searched for such a label only when the text reads as UTF-8 so recovered.
 */
export function readAgainAsUtf8(text: string, raw: Uint8Array | string): string {
  if (!/[\u0080-\uffff]/.test(text)) return text;
  const bytes = windows1252Bytes(text);
  if (bytes === null || isAscii(bytes) || !isUtf8(bytes)) return text;
  return declaresUnknownCharset(raw) ? Buffer.from(bytes).toString('utf8') : text;
}

/** windows-1252's bytes for a text, or null when a character has none. */
function windows1252Bytes(text: string): Buffer | null {
  const out = Buffer.allocUnsafe(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const b = c < 0x80 || (c >= 0xa0 && c <= 0xff) ? c : HIGH.get(c);
    if (b === undefined) return null;
    out[i] = b;
  }
  return out;
}

/** The characters windows-1252 puts at 0x80–0x9F (€, curly quotes, dashes… and five C1 controls), to their bytes. */
const HIGH = new Map<number, number>();
{
  const decoded = new TextDecoder('windows-1252').decode(Uint8Array.from({ length: 32 }, (_, i) => 0x80 + i));
  for (let i = 0; i < decoded.length; i++) HIGH.set(decoded.charCodeAt(i), 0x80 + i);
}

const CHARSET = /charset\s*=\s*"?([A-Za-z0-9_.:+-]{1,40})/gi;

function declaresUnknownCharset(raw: Uint8Array | string): boolean {
  const source =
    typeof raw === 'string'
      ? raw
      : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
  for (const [, label] of source.matchAll(CHARSET)) {
    try {
      new TextDecoder(label);
    } catch {
      return true;
    }
  }
  return false;
}
