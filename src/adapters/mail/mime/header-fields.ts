/**
 * Small, allocation-light readers for the header fields the index keeps. They work on a raw header block (what
 * IMAP returns for BODY.PEEK[HEADER.FIELDS (…)]) as well as on values a full parser already unfolded.
 */

const utf8 = new TextDecoder('utf-8');

/**
 * Unfolds a raw header block (RFC 5322 §2.2.3) into lower-case name → value; the first occurrence of a field wins.
 * Bytes are read as UTF-8 (RFC 6532); the fields we read are ASCII in practice.
 */
export function parseHeaderBlock(block: Uint8Array | string): Map<string, string> {
  const text = typeof block === 'string' ? block : utf8.decode(block);
  const fields = new Map<string, string>();
  let name: string | undefined;
  let value = '';
  const flush = (): void => {
    if (name !== undefined && !fields.has(name)) fields.set(name, value.replace(/\s+/g, ' ').trim());
  };
  for (const line of text.split(/\r?\n/)) {
    if (line === '') break; // end of the header block
    if (/^[ \t]/.test(line)) {
      value += ` ${line.trim()}`;
      continue;
    }
    flush();
    const colon = line.indexOf(':');
    name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : undefined;
    value = colon > 0 ? line.slice(colon + 1) : '';
  }
  flush();
  return fields;
}

/** A Content-Type field in a header block, its folded lines included; group 1 is its value. */
export const CONTENT_TYPE_FIELD = /^content-type:([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)/im;

/** Where a message's header block ends: after its blank line (CRLF or bare LF), or the whole message when it has none. */
export function headerBlockEnd(bytes: Buffer): number {
  const crlf = bytes.indexOf('\r\n\r\n');
  const lf = bytes.indexOf('\n\n');
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return crlf + 4;
  return lf === -1 ? bytes.length : lf + 2;
}

/** The Message-ID of a raw message, read from its header block only; undefined when it has none. */
export function messageIdOf(raw: Uint8Array): string | undefined {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const id = parseHeaderBlock(bytes.subarray(0, headerBlockEnd(bytes))).get('message-id');
  return id === undefined || id === '' ? undefined : id;
}

/** Every `<id>` of a Message-ID, In-Reply-To or References value, in order. */
export function messageIds(value: string | null | undefined): string[] {
  if (value === null || value === undefined) return [];
  return value.match(/<[^<>\s]+>/g) ?? [];
}

/**
 * The list identifier of a List-Id value (RFC 2919 §3: `Description <id>`), without brackets: a stable key to
 * group or mute a list by. Falls back to the whole trimmed value for lists that omit the brackets.
 */
export function listIdOf(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const bracketed = /<([^<>]+)>\s*$/.exec(value);
  const id = (bracketed?.[1] ?? value).trim();
  return id === '' ? null : id;
}

/** RFC 8058 one-click: `List-Unsubscribe-Post: List-Unsubscribe=One-Click`. */
export function isOneClick(value: string | null | undefined): boolean {
  return value !== null && value !== undefined && /List-Unsubscribe=One-Click/i.test(value);
}

/**
 * A thread key without server-side threading: the root of the References chain. RFC 5322 §3.6.4 has replies
 * carry the parent's References plus its Message-ID, and clients that trim a long chain keep the first entry,
 * so `References[0]` (else In-Reply-To, else the message's own Message-ID) is the same string for every message
 * of a conversation. It is a cheap approximation of RFC 5256 REFERENCES threading: replies from clients that
 * send neither header start a thread of their own, and subjects are never used to merge threads.
 */
export function threadRoot(
  references: readonly string[],
  inReplyTo: string | null,
  messageId: string | null,
): string | null {
  return references[0] ?? messageIds(inReplyTo)[0] ?? messageId ?? null;
}
