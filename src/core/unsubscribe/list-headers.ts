/**
 * The header block of a raw RFC 5322 message, as the list headers need it: every occurrence of a field, in order,
 * unfolded (RFC 5322 §2.2.3). RFC 8058 one-click depends on *which* copy of a header a DKIM signature covers, so
 * nothing here merges or drops repeated fields.
 */
export interface HeaderField {
  /** Lower-case field name. */
  readonly name: string;
  /** Unfolded value, surrounding whitespace trimmed. */
  readonly value: string;
}

const LATIN1 = new TextDecoder('latin1');

/** The fields of the header block (up to the first empty line), in message order. Bytes are read one to a char. */
export function headerFields(raw: Uint8Array): HeaderField[] {
  const text = LATIN1.decode(raw);
  const end = /\r?\n\r?\n/.exec(text);
  const block = end === null ? text : text.slice(0, end.index);
  // A field's lines are joined once, at the end: joining them line by line copied the value so far at every line, so
  // that a sender's header of a million folded lines held the thread for hours (decision 0099).
  const fields: { name: string; lines: string[] }[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (/^[ \t]/.test(line)) {
      fields.at(-1)?.lines.push(line.trim());
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    fields.push({ name: line.slice(0, colon).trim().toLowerCase(), lines: [line.slice(colon + 1).trim()] });
  }
  return fields.map((f) => ({ name: f.name, value: f.lines.filter((l) => l !== '').join(' ') }));
}

export const occurrences = (fields: readonly HeaderField[], name: string): HeaderField[] =>
  fields.filter((f) => f.name === name);

/** The URIs of a List-Unsubscribe value (RFC 2369 §3.2: angle-bracketed, comma-separated, comments allowed). */
export function unsubscribeUris(value: string): string[] {
  const uris: string[] = [];
  for (const m of value.matchAll(/<([^<>]*)>/g)) {
    const uri = (m[1] ?? '').replace(/\s+/g, '');
    if (uri !== '') uris.push(uri);
  }
  return uris;
}

/** RFC 8058 §3.1: the POST header must say exactly `List-Unsubscribe=One-Click`. */
export const isOneClickPost = (value: string): boolean =>
  /^List-Unsubscribe\s*=\s*One-Click$/i.test(value.trim());

export interface MailtoTarget {
  readonly to: string;
  readonly subject: string | null;
  readonly body: string | null;
}

/** A `mailto:` URI (RFC 6068) as a draft needs it; undefined when it names no single plain address. */
export function parseMailto(uri: string): MailtoTarget | undefined {
  if (!/^mailto:/i.test(uri)) return undefined;
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return undefined;
  }
  let to: string;
  try {
    to = decodeURIComponent(u.pathname);
  } catch {
    return undefined;
  }
  if (!/^[^\s@,<>"]+@[^\s@,<>"]+$/.test(to)) return undefined;
  const text = (key: string) => {
    const v = u.searchParams.get(key);
    return v === null ? null : v.replace(/[\r\n]+/g, ' ').slice(0, 500);
  };
  return { to, subject: text('subject'), body: text('body') };
}
