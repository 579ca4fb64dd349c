import { isAscii } from 'node:buffer';
import { CONTENT_TYPE_FIELD, headerBlockEnd } from './header-fields.ts';
import { ASCII_LABELS, decodeTransfer, partCharset } from './part-preview.ts';

/**
 * The bytes of a multipart message with each text part labelled as its snippet reads it (decision 0105): a text part
 * that declares no charset, or US-ASCII, over bytes that are not ASCII — raw 8-bit, or quoted-printable or base64
 * that decodes to 8-bit — gets the charset `partCharset` finds (UTF-8 if they are, else an HTML part's own `<meta>`,
 * else windows-1252) written into its Content-Type. The parser reads a part's bytes in its label, and read these as
 * UTF-8 whatever they were (`Caf\xe9` as `Caf\uFFFD`). Parts are found by their boundaries, nested multiparts too;
 * nothing else changes, and a message with nothing to label comes back as the same bytes.
 */
export function withPartCharsets(raw: Uint8Array): Uint8Array {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const end = headerBlockEnd(bytes);
  const multipart = multipartBoundary(bytes.subarray(0, end));
  if (multipart === undefined) return raw;
  const edits: Edit[] = [];
  labelParts(bytes, end, bytes.length, multipart, edits, 0);
  if (edits.length === 0) return raw;
  const pieces: Buffer[] = [];
  let at = 0;
  for (const e of edits) {
    pieces.push(bytes.subarray(at, e.start), e.header);
    at = e.end;
  }
  pieces.push(bytes.subarray(at));
  return Buffer.concat(pieces);
}

/** A part's header block [start, end) to be replaced by `header`. */
interface Edit {
  readonly start: number;
  readonly end: number;
  readonly header: Buffer;
}

/** Deeper than mail nests in practice (imapflow's own limit is far below; decision 0069). */
const MAX_DEPTH = 16;
/** The most of a part read to tell its charset: the HTML a reader keeps is cut at 2 MB as well. */
const MAX_PART_BYTES = 2 * 1024 * 1024;

const TRANSFER_ENCODING = /^content-transfer-encoding:\s*([a-z0-9-]+)/im;
const CHARSET = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i;
const BOUNDARY = /;\s*boundary\s*=\s*(?:"([^"\r\n]{1,200})"|([^";\s]{1,200}))/i;

/** The boundary of a multipart header block, and whether it is a digest (whose bare parts are messages). */
function multipartBoundary(header: Buffer): { boundary: string; digest: boolean } | undefined {
  const field = CONTENT_TYPE_FIELD.exec(header.toString('latin1'))?.[1];
  if (field === undefined || !/^\s*multipart\//i.test(field)) return undefined;
  const m = BOUNDARY.exec(field);
  const boundary = m?.[1] ?? m?.[2];
  return boundary === undefined ? undefined : { boundary, digest: /^\s*multipart\/digest\b/i.test(field) };
}

/** Where a part's header block ends: at once when the part begins with its blank line (no header at all). */
function partHeaderEnd(part: Buffer): number {
  if (part[0] === 0x0a) return 1;
  if (part[0] === 0x0d && part[1] === 0x0a) return 2;
  return headerBlockEnd(part);
}

/** Labels the text parts between `from` and `to` that the parser would misread, into `edits` (in byte order). */
function labelParts(
  bytes: Buffer,
  from: number,
  to: number,
  multipart: { readonly boundary: string; readonly digest: boolean },
  edits: Edit[],
  depth: number,
): void {
  if (depth >= MAX_DEPTH) return;
  const starts = delimiters(bytes, from, to, multipart.boundary);
  for (let i = 0; i + 1 < starts.length; i++) {
    const cur = starts[i];
    const next = starts[i + 1];
    if (cur === undefined || next === undefined || cur.closing) break;
    const partStart = cur.after;
    const partEnd = next.at;
    if (partStart >= partEnd) continue;
    const part = bytes.subarray(partStart, partEnd);
    const headerEnd = partHeaderEnd(part);
    const header = part.subarray(0, headerEnd);
    const inner = multipartBoundary(header);
    if (inner !== undefined) {
      labelParts(bytes, partStart + headerEnd, partEnd, inner, edits, depth + 1);
      continue;
    }
    const body = part.subarray(headerEnd, Math.min(part.length, headerEnd + MAX_PART_BYTES));
    const cut = part.length - headerEnd > MAX_PART_BYTES;
    const label = relabelled(header, body, { inDigest: multipart.digest, cut });
    if (label !== undefined) edits.push({ start: partStart, end: partStart + headerEnd, header: label });
  }
}

/** Each delimiter line of `boundary` in [from, to): where it starts, where its line ends, and whether it closes. */
function delimiters(bytes: Buffer, from: number, to: number, boundary: string) {
  const mark = Buffer.from(`--${boundary}`, 'latin1');
  const out: { at: number; after: number; closing: boolean }[] = [];
  let at = bytes.indexOf(mark, from);
  while (at !== -1 && at < to) {
    const lineStart = at === from || bytes[at - 1] === 0x0a;
    const lineEnd = bytes.indexOf(0x0a, at + mark.length);
    const after = lineEnd === -1 || lineEnd >= to ? to : lineEnd + 1;
    if (lineStart) {
      const closing = bytes[at + mark.length] === 0x2d && bytes[at + mark.length + 1] === 0x2d;
      // The part before a delimiter ends at the line break before it, which belongs to the delimiter.
      const before = at > from && bytes[at - 2] === 0x0d ? at - 2 : at - 1;
      out.push({ at: Math.max(before, from), after, closing });
    }
    at = bytes.indexOf(mark, at + mark.length);
  }
  if (out.at(-1)?.closing !== true) out.push({ at: to, after: to, closing: true });
  return out;
}

/** The part's header with a charset written in, when it is a text part the parser would read in the wrong one. */
function relabelled(
  header: Buffer,
  body: Buffer,
  { inDigest, cut }: { readonly inDigest: boolean; readonly cut: boolean },
): Buffer | undefined {
  const text = header.toString('latin1');
  const ct = CONTENT_TYPE_FIELD.exec(text);
  const field = ct?.[1];
  // A part without a Content-Type is text/plain (RFC 2045 §5.2), a message in a digest (RFC 2046 §5.1.5).
  if (field === undefined && inDigest) return undefined;
  const type =
    field === undefined ? 'text/plain' : /^\s*(text\/[a-z0-9.+-]+)/i.exec(field)?.[1]?.toLowerCase();
  if (type === undefined) return undefined;
  const declared = field === undefined ? undefined : CHARSET.exec(field);
  const label = declared?.[2]?.toLowerCase();
  if (label !== undefined && label !== '' && !ASCII_LABELS.has(label)) return undefined;
  const decoded = decodeTransfer(body, TRANSFER_ENCODING.exec(text)?.[1]);
  if (isAscii(decoded)) return undefined;
  // Read up to a limit, the bytes may end inside a character; read whole, they may not (`Caf\xe9` is no cut UTF-8).
  const charset = partCharset({ contentType: type }, decoded, cut ? 'cut' : undefined) ?? 'utf-8';
  if (charset === 'utf-8' && label === undefined) return undefined; // read as UTF-8 already
  if (ct === null || field === undefined)
    return Buffer.from(`Content-Type: text/plain; charset=${charset}\r\n${text}`, 'latin1');
  const written =
    declared === null
      ? // Trimmed, not `/\s*;?\s*$/`: that pattern tried at each space of a run takes time cubic in the run's length
        // (5,000 spaces a sender put in a part's Content-Type: 37 s, the thread held).
        `${field.trimEnd().replace(/;$/, '').trimEnd()}; charset=${charset}`
      : field.replace(CHARSET, `; charset=${charset}`);
  return Buffer.from(
    text.slice(0, ct.index) + `Content-Type:${written}` + text.slice(ct.index + ct[0].length),
    'latin1',
  );
}
