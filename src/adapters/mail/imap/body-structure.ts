import type { MessageStructureObject } from 'imapflow';
import type { AttachmentInfo } from '../../../core/mail/mail-types.ts';

/**
 * Reads what the index needs from an IMAP BODYSTRUCTURE (RFC 3501 §7.4.2) without downloading the body: whether
 * there are attachments, which part holds the text for a snippet, and the attachment list with part numbers.
 */

/** The body part number IMAP uses for a node; a single-part message's body is part "1" (RFC 3501 §6.4.5). */
function partOf(node: MessageStructureObject): string {
  return node.part ?? '1';
}

function filenameOf(node: MessageStructureObject): string | undefined {
  const name = node.dispositionParameters?.filename ?? node.parameters?.name;
  return name === undefined || name.trim() === '' ? undefined : name;
}

function isAttachmentNode(node: MessageStructureObject): boolean {
  return node.disposition?.toLowerCase() === 'attachment' || filenameOf(node) !== undefined;
}

/** Leaf parts in document order; an attached message (message/rfc822) counts as one leaf. */
function leaves(node: MessageStructureObject): MessageStructureObject[] {
  if (
    node.childNodes === undefined ||
    node.childNodes.length === 0 ||
    node.type.toLowerCase() === 'message/rfc822'
  ) {
    return [node];
  }
  return node.childNodes.flatMap(leaves);
}

export function hasAttachments(root: MessageStructureObject | undefined): boolean {
  return root !== undefined && leaves(root).some(isAttachmentNode);
}

export interface TextPart {
  readonly part: string;
  readonly contentType: 'text/plain' | 'text/html';
  readonly charset: string | undefined;
  readonly encoding: string | undefined;
}

/** The first inline text/plain part, else the first inline text/html part: where a snippet comes from. */
export function snippetPart(root: MessageStructureObject | undefined): TextPart | undefined {
  if (root === undefined) return undefined;
  const inline = leaves(root).filter((n) => !isAttachmentNode(n));
  const plain = inline.find((n) => n.type.toLowerCase() === 'text/plain');
  const node = plain ?? inline.find((n) => n.type.toLowerCase() === 'text/html');
  if (node === undefined) return undefined;
  return {
    part: partOf(node),
    contentType: plain === undefined ? 'text/html' : 'text/plain',
    charset: node.parameters?.charset,
    encoding: node.encoding,
  };
}

/** Encodings whose BODYSTRUCTURE size is also the decoded size. */
const IDENTITY_ENCODINGS = new Set(['7bit', '8bit', 'binary', '']);

/**
 * The decoded size of a part: exact for identity encodings; for base64 an estimate from 76-character lines
 * (57 bytes per 78 octets). Shown to people, never used as a Content-Length.
 */
export function decodedSize(node: MessageStructureObject): { size: number; exact: boolean } {
  const size = node.size ?? 0;
  const encoding = (node.encoding ?? '').toLowerCase();
  if (IDENTITY_ENCODINGS.has(encoding)) return { size, exact: true };
  if (encoding === 'base64') return { size: Math.floor((size * 57) / 78), exact: false };
  return { size, exact: false };
}

/**
 * Attachments with their IMAP part numbers as `partId`: parts with `Content-Disposition: attachment` or a file
 * name, plus inline non-text leaves (pictures referenced from the HTML), which a person also sees as files.
 */
export function attachmentsOf(root: MessageStructureObject | undefined): AttachmentInfo[] {
  if (root === undefined) return [];
  const bodyText = snippetPart(root)?.part;
  return leaves(root)
    .filter((n) => {
      if (isAttachmentNode(n)) return true;
      const type = n.type.toLowerCase();
      return !type.startsWith('text/') && !type.startsWith('multipart/') && partOf(n) !== bodyText;
    })
    .map((n) => ({
      partId: partOf(n),
      filename: filenameOf(n) ?? `attachment-${partOf(n)}`,
      contentType: n.type.toLowerCase(),
      size: decodedSize(n).size,
      inline: n.disposition?.toLowerCase() === 'inline',
    }));
}

/** The inline text parts (the first text/plain and the first text/html), for reading a large message without its attachments. */
export function textParts(root: MessageStructureObject | undefined): string[] {
  if (root === undefined) return [];
  const inline = leaves(root).filter((n) => !isAttachmentNode(n));
  return ['text/plain', 'text/html'].flatMap((type) => {
    const node = inline.find((n) => n.type.toLowerCase() === type);
    return node === undefined ? [] : [partOf(node)];
  });
}

/** Finds a part by number, for openAttachment. */
export function findPart(
  root: MessageStructureObject | undefined,
  partId: string,
): MessageStructureObject | undefined {
  if (root === undefined) return undefined;
  if (root.childNodes === undefined || root.childNodes.length === 0) return partId === '1' ? root : undefined;
  const stack = [...root.childNodes];
  for (let node = stack.shift(); node !== undefined; node = stack.shift()) {
    if (node.part === partId) return node;
    if (node.childNodes !== undefined) stack.push(...node.childNodes);
  }
  return undefined;
}
