import { createHash } from 'node:crypto';
import type { Charset } from './mime-encoding.ts';
import {
  base64Lines,
  encodeCharset,
  encodeHeaderText,
  isAscii,
  quotedPrintable,
  rfc5322Date,
} from './mime-encoding.ts';

/**
 * RFC 5322 / MIME message builder for tests. Written by hand rather than with
 * nodemailer's MailComposer so the rig controls the exact bytes: legacy
 * charsets (ISO-8859-1, windows-1252, ISO-2022-JP), encoded-word placement,
 * and deterministic boundaries.
 */

export interface Mailbox {
  name?: string;
  address: string;
}

export interface AttachmentSpec {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface ListSpec {
  /** List-Id value without brackets, e.g. "news.example.com" */
  id: string;
  name?: string;
  unsubscribeHttps?: string;
  unsubscribeMailto?: string;
  /** adds List-Unsubscribe-Post: List-Unsubscribe=One-Click (RFC 8058) */
  oneClick?: boolean;
}

export interface MessageSpec {
  from: Mailbox;
  to: Mailbox[];
  cc?: Mailbox[];
  subject: string;
  /** charset for encoded words in the Subject when it is not ASCII (default utf-8) */
  subjectCharset?: Charset;
  date: Date;
  /** zone offset written in the Date header, in minutes east of UTC (default 0) */
  dateOffsetMinutes?: number;
  /** "<id@host>" */
  messageId: string;
  inReplyTo?: string;
  references?: string[];
  list?: ListSpec;
  text?: string;
  html?: string;
  /** charset of the text/html bodies (default utf-8) */
  bodyCharset?: Charset;
  attachments?: AttachmentSpec[];
  /** extra ASCII headers, written verbatim */
  headers?: Record<string, string>;
}

const TSPECIALS = /[()<>[\]:;@\\,."]/;

/** A display name: encoded words when non-ASCII, a quoted string when it has specials. */
function phrase(name: string): string {
  if (!isAscii(name)) return encodeHeaderText(name);
  return TSPECIALS.test(name) ? `"${name.replace(/[\\"]/g, (c) => `\\${c}`)}"` : name;
}

function formatMailbox(m: Mailbox): string {
  return m.name ? `${phrase(m.name)} <${m.address}>` : m.address;
}

/** A MIME parameter; non-ASCII values use RFC 2231 (filename*=utf-8''…). */
function param(key: string, value: string): string {
  if (isAscii(value)) return `${key}="${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  const pct = [...Buffer.from(value, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9._-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
  return `${key}*=utf-8''${pct}`;
}

interface Part {
  headers: string[];
  body: string;
}

function textPart(type: 'plain' | 'html', content: string, charset: Charset): Part {
  const bytes = encodeCharset(content.replace(/\r?\n/g, '\r\n'), charset);
  // ISO-2022-JP is 7-bit by design and is conventionally sent as 7bit.
  const sevenBit = charset === 'iso-2022-jp' || bytes.every((b) => b < 0x80);
  return {
    headers: [
      `Content-Type: text/${type}; charset=${charset === 'utf-8' ? 'utf-8' : charset.toUpperCase()}`,
      `Content-Transfer-Encoding: ${sevenBit ? '7bit' : 'quoted-printable'}`,
    ],
    body: sevenBit ? bytes.toString('latin1') : quotedPrintable(bytes),
  };
}

function attachmentPart(a: AttachmentSpec): Part {
  return {
    headers: [
      `Content-Type: ${a.contentType}; ${param('name', a.filename)}`,
      `Content-Disposition: attachment; ${param('filename', a.filename)}`,
      'Content-Transfer-Encoding: base64',
    ],
    body: base64Lines(a.content),
  };
}

function multipart(subtype: 'mixed' | 'alternative', parts: Part[], boundary: string): Part {
  const body =
    parts.map((p) => `--${boundary}\r\n${p.headers.join('\r\n')}\r\n\r\n${p.body}\r\n`).join('') +
    `--${boundary}--`;
  return { headers: [`Content-Type: multipart/${subtype}; boundary="${boundary}"`], body };
}

/**
 * Builds one RFC 5322 message (CRLF line endings, 7-bit clean: non-ASCII text
 * goes through encoded words, quoted-printable or base64). The output is a pure
 * function of the spec, so equal specs give byte-identical messages.
 */
export function buildMessage(spec: MessageSpec): Buffer {
  const charset = spec.bodyCharset ?? 'utf-8';
  // Boundaries derive from the Message-ID: unique per message, yet deterministic.
  const tag = createHash('sha1').update(spec.messageId).digest('hex').slice(0, 16);
  let body: Part;
  if (spec.text !== undefined && spec.html !== undefined) {
    body = multipart(
      'alternative',
      [textPart('plain', spec.text, charset), textPart('html', spec.html, charset)],
      `alt_${tag}`,
    );
  } else if (spec.html !== undefined) {
    body = textPart('html', spec.html, charset);
  } else {
    body = textPart('plain', spec.text ?? '', charset);
  }
  if (spec.attachments?.length) {
    body = multipart('mixed', [body, ...spec.attachments.map(attachmentPart)], `mix_${tag}`);
  }

  const headers = [
    `From: ${formatMailbox(spec.from)}`,
    `To: ${spec.to.map(formatMailbox).join(',\r\n ')}`,
    ...(spec.cc?.length ? [`Cc: ${spec.cc.map(formatMailbox).join(',\r\n ')}`] : []),
    `Subject: ${encodeHeaderText(spec.subject, spec.subjectCharset)}`,
    `Date: ${rfc5322Date(spec.date, spec.dateOffsetMinutes)}`,
    `Message-ID: ${spec.messageId}`,
    ...(spec.inReplyTo ? [`In-Reply-To: ${spec.inReplyTo}`] : []),
    ...(spec.references?.length ? [`References: ${spec.references.join('\r\n ')}`] : []),
    ...listHeaders(spec.list),
    ...Object.entries(spec.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    'MIME-Version: 1.0',
    ...body.headers,
  ];
  return Buffer.from(`${headers.join('\r\n')}\r\n\r\n${body.body}\r\n`, 'latin1');
}

function listHeaders(list: ListSpec | undefined): string[] {
  if (!list) return [];
  const out = [`List-Id: ${list.name ? `${phrase(list.name)} ` : ''}<${list.id}>`];
  const targets = [list.unsubscribeHttps, list.unsubscribeMailto].filter((t): t is string => Boolean(t));
  if (targets.length) out.push(`List-Unsubscribe: ${targets.map((t) => `<${t}>`).join(',\r\n ')}`);
  if (list.oneClick) out.push('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
  return out;
}
