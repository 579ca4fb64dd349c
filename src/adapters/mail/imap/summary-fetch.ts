import { messageDate } from '../../../core/mail/message-date.ts';
import type { FetchMessageObject, FetchQueryObject, ImapFlow, MessageAddressObject } from 'imapflow';
import type { FlagState, RemoteSummary } from '../../../core/mail/mail-types.ts';
import type { Address } from '../../../core/messages/message.ts';
import { garbled } from '../mime/eight-bit-header.ts';
import { isOneClick, listIdOf, messageIds, parseHeaderBlock, threadRoot } from '../mime/header-fields.ts';
import { parseMessage, readableText, snippet, type ParsedMessage } from '../mime/parse-message.ts';
import { decodePartPreview } from '../mime/part-preview.ts';
import { hasAttachments, snippetPart, type TextPart } from './body-structure.ts';
import { bytesOf } from './fetched-bytes.ts';
import { chunk, toUidSet } from './uid-set.ts';

/**
 * Message summaries in one or two round trips per batch: first the cheap metadata (flags, ENVELOPE, BODYSTRUCTURE,
 * the list headers) with the first bytes of part 1, then, grouped by body part number, the first bytes of the text
 * part of messages whose text is elsewhere (multipart/alternative inside mixed, HTML only). No full bodies
 * cross the wire, which keeps a 10k-message first sync to a few seconds (imapflow parses ~5k FETCH items/s).
 */

const LIST_HEADERS = ['list-id', 'list-unsubscribe', 'list-unsubscribe-post', 'references'];

/** HTML spends its first kilobytes on <head> and <style>, so it gets a larger slice than plain text. */
const PREVIEW_BYTES: Record<TextPart['contentType'], number> = { 'text/plain': 2048, 'text/html': 8192 };

export const SUMMARY_QUERY: FetchQueryObject = {
  uid: true,
  flags: true,
  labels: true, // X-GM-LABELS, only requested when the server is Gmail
  envelope: true,
  bodyStructure: true,
  internalDate: true,
  size: true,
  threadId: true, // OBJECTID THREADID or Gmail X-GM-THRID, only requested when offered
  headers: LIST_HEADERS,
  // Part 1 is the text of most mail (single-part, or text first in multipart/mixed|alternative): fetching its
  // start up front saves the second round trip — and imapflow's per-response parsing cost — for those.
  bodyParts: [{ key: '1', maxLength: PREVIEW_BYTES['text/plain'] }],
};

/**
 * The same summary from the message's own bytes, for an answer imapflow will not parse. It drops, unseen and with no
 * error to its caller, any response nested more than 25 parentheses deep (`MAX_IMAP_NESTING_REACHED`): the
 * BODYSTRUCTURE of a message forwarded as an attachment a dozen times over, or of one built to be that deep. Such a
 * message would never reach the index, invisible to the agent and to the person's view of it (decision 0069). Its
 * start, given as one literal, always parses; the headers of a summary are read from it.
 */
export const SOURCE_SUMMARY_QUERY: FetchQueryObject = {
  uid: true,
  flags: true,
  labels: true,
  internalDate: true,
  size: true,
  threadId: true,
  source: { maxLength: 64 * 1024 },
};

const BATCH = 1000;
/** With a consumer, summaries are handed over in groups this size while the FETCH still streams. */
const HANDOVER = 250;

/**
 * Summaries of these UIDs in the selected mailbox, ascending by UID; missing UIDs are skipped. Hold the lock.
 * With `onBatch`, summaries are handed over in groups of up to 250 as they are parsed and nothing is collected:
 * a 10k first sync then never holds more than a few hundred, which keeps them out of the garbage collector's
 * old generation. Each group is ascending; groups are not ordered among themselves.
 */
export async function fetchSummaries(
  client: ImapFlow,
  uids: readonly number[],
  onBatch?: (batch: RemoteSummary[]) => Promise<void>,
): Promise<RemoteSummary[]> {
  const sorted = [...new Set(uids)].sort((a, b) => a - b);
  const out: RemoteSummary[] = [];
  let done: RemoteSummary[] = [];
  const flush = async (min: number) => {
    if (done.length < min || done.length === 0) return;
    const group = done.sort((a, b) => a.position - b.position);
    done = [];
    if (onBatch === undefined) out.push(...group);
    else await onBatch(group);
  };
  for (const batch of chunk(sorted, BATCH)) {
    const wanted = new Set(batch);
    const pending: { meta: FetchMessageObject; part: TextPart }[] = [];
    const misspelt: FetchMessageObject[] = [];
    // Each message becomes a summary as it arrives, unless its text is not part 1 (then it waits for the second
    // round trip). Handing summaries over mid-stream is fine (the consumer issues no IMAP command); fetching
    // previews is not: a command issued while a FETCH streams would wait for itself.
    for await (const m of client.fetch(toUidSet(batch), SUMMARY_QUERY, { uid: true })) {
      // The server may interleave unsolicited FETCH responses (flags another client changed in the open folder):
      // only an answer to this query, for an asked-for UID, is a summary.
      if (m.envelope === undefined || !wanted.delete(m.uid)) continue;
      if (garbledEnvelope(m)) {
        misspelt.push(m);
        continue;
      }
      const part = snippetPart(m.bodyStructure);
      const early = bytesOf(m.bodyParts?.get('1'));
      if (part === undefined) done.push(toRemoteSummary(m, ''));
      else if (part.part === '1' && part.contentType === 'text/plain' && early !== undefined)
        done.push(toRemoteSummary(m, snippet(decodePartPreview(early, part))));
      else pending.push({ meta: m, part });
      if (onBatch !== undefined) await flush(HANDOVER);
    }
    // What the server has but imapflow did not hand over (its parser refused the answer), or what has gone since.
    if (wanted.size > 0) done.push(...(await summariesFromSource(client, [...wanted])));
    if (misspelt.length > 0) done.push(...(await respelt(client, misspelt)));
    const previews = await fetchPreviews(client, pending);
    for (const { meta } of pending) done.push(toRemoteSummary(meta, previews.get(meta.uid) ?? ''));
    if (onBatch !== undefined) await flush(1);
  }
  await flush(1);
  return out.sort((a, b) => a.position - b.position);
}

/** Summaries read from the start of each message's source (see SOURCE_SUMMARY_QUERY); UIDs no longer there are skipped. */
async function summariesFromSource(client: ImapFlow, uids: readonly number[]): Promise<RemoteSummary[]> {
  const wanted = new Set(uids);
  const got: { meta: FetchMessageObject; source: Buffer }[] = [];
  for await (const m of client.fetch(toUidSet(uids), SOURCE_SUMMARY_QUERY, { uid: true })) {
    const source = bytesOf(m.source);
    if (source !== undefined && wanted.delete(m.uid)) got.push({ meta: m, source });
  }
  return Promise.all(
    got.map(async ({ meta, source }) => summaryFromSource(meta, await parseMessage(source))),
  );
}

/**
 * Raw 8-bit header bytes that are not UTF-8 reach the ENVELOPE as U+FFFD. Such messages keep their summary, with the
 * subject, the senders and the snippet read from the start of their source, decoded as the parser decodes such a
 * header (decision 0078).
 */
async function respelt(client: ImapFlow, metas: readonly FetchMessageObject[]): Promise<RemoteSummary[]> {
  const read = await summariesFromSource(
    client,
    metas.map((m) => m.uid),
  );
  const byUid = new Map(read.map((s) => [s.position, s]));
  return metas.flatMap((m) => {
    const s = byUid.get(m.uid);
    return s === undefined ? [] : [respell(toRemoteSummary(m, s.snippet), s)];
  });
}

/**
 * The summary with the words the server's ENVELOPE could not spell taken from the parsed source: the subject, and
 * the name of each sender and recipient whose address the source names alike. The addresses stay the server's, and
 * a word the source cannot spell either stays as it was — a message built to confuse the parser moves no address.
 */
export function respell(
  summary: RemoteSummary,
  source: Pick<RemoteSummary, 'subject' | 'from' | 'to'>,
): RemoteSummary {
  const spelt = (envelope: string, parsed: string) =>
    garbled(envelope) && !garbled(parsed) && parsed !== '' ? parsed : envelope;
  const named = new Map([source.from, ...source.to].map((a) => [a.address.toLowerCase(), a.name] as const));
  const name = (a: Address): Address => ({
    ...a,
    name: spelt(a.name, named.get(a.address.toLowerCase()) ?? ''),
  });
  return {
    ...summary,
    subject: spelt(summary.subject, source.subject),
    from: name(summary.from),
    to: summary.to.map(name),
  };
}

/** The start of the text part of messages whose text is not part 1, one FETCH per (part, type) group. */
async function fetchPreviews(
  client: ImapFlow,
  pending: readonly { meta: FetchMessageObject; part: TextPart }[],
): Promise<Map<number, string>> {
  const parts = new Map<number, TextPart>();
  const groups = new Map<string, number[]>();
  const previews = new Map<number, string>();
  for (const { meta, part } of pending) {
    parts.set(meta.uid, part);
    const key = `${part.part} ${part.contentType}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [meta.uid]);
    else group.push(meta.uid);
  }
  for (const [key, uids] of groups) {
    const [partId = '1', contentType = 'text/plain'] = key.split(' ');
    const first = PREVIEW_BYTES[contentType as TextPart['contentType']];
    const bodies = await partStarts(client, uids, partId, first);
    // HTML whose first bytes are all markup — a template's <head> of CSS runs to 20 KB and more — is read again,
    // further, before its preview is given up as empty: one more round trip, for those messages only.
    const further: number[] = [];
    for (const [uid, body] of bodies) {
      const part = parts.get(uid);
      if (part === undefined) continue;
      const text = snippet(decodePartPreview(body, part));
      if (text === '' && contentType === 'text/html' && body.length >= first) further.push(uid);
      else previews.set(uid, text);
    }
    if (further.length === 0) continue;
    for (const [uid, body] of await partStarts(client, further, partId, HTML_PREVIEW_FURTHER_BYTES)) {
      const part = parts.get(uid);
      if (part !== undefined) previews.set(uid, snippet(decodePartPreview(body, part)));
    }
  }
  return previews;
}

/** How far an HTML part is read for its preview when its first PREVIEW_BYTES held no text. */
const HTML_PREVIEW_FURTHER_BYTES = 64 * 1024;

/** The first `maxLength` bytes of one part of each of these messages, by UID; UIDs no longer there are skipped. */
async function partStarts(
  client: ImapFlow,
  uids: readonly number[],
  partId: string,
  maxLength: number,
): Promise<[number, Buffer][]> {
  const bodies: [number, Buffer][] = [];
  const wanted = new Set(uids);
  const query = { uid: true, bodyParts: [{ key: partId, maxLength }] };
  for await (const m of client.fetch(toUidSet(uids), query, { uid: true })) {
    const body = bytesOf(m.bodyParts?.get(partId));
    if (body !== undefined && wanted.delete(m.uid)) bodies.push([m.uid, body]);
  }
  return bodies;
}

/** IMAP flags as the index sees them: unread = no \Seen, starred = \Flagged, labels = keywords (+ Gmail labels). */
export function flagState(m: Pick<FetchMessageObject, 'uid' | 'flags' | 'labels'>): FlagState {
  const flags = m.flags ?? new Set<string>();
  const labels = new Set<string>();
  for (const f of [...flags, ...(m.labels ?? [])]) if (!f.startsWith('\\')) labels.add(f);
  return {
    ref: String(m.uid),
    unread: !flags.has('\\Seen'),
    starred: flags.has('\\Flagged'),
    labels: [...labels].sort(),
  };
}

function address(a: MessageAddressObject | undefined): Address | undefined {
  if (a?.address === undefined || a.address === '') return undefined;
  return { address: a.address, name: a.name ?? '' };
}

function validDate(d: Date | string | undefined): Date | undefined {
  if (d === undefined) return undefined;
  const date = d instanceof Date ? d : new Date(d);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * One summary from a FETCH of SOURCE_SUMMARY_QUERY and its source parsed: the header fields from the message itself,
 * `hasAttachments` from what the parser found in the bytes fetched.
 */
export function summaryFromSource(m: FetchMessageObject, parsed: ParsedMessage): RemoteSummary {
  const messageId = messageIds(parsed.messageId)[0] ?? null;
  return {
    ...flagState(m),
    position: m.uid,
    threadId: m.threadId ?? threadRoot(parsed.references, parsed.inReplyTo, messageId),
    internetMessageId: messageId,
    subject: parsed.subject,
    from: parsed.from,
    to: parsed.to,
    snippet: snippet(readableText(parsed)),
    date: messageDate(parsed.date ?? undefined, validDate(m.internalDate)),
    hasAttachments: parsed.attachments.length > 0,
    size: m.size ?? 0,
    listId: parsed.listId,
    listUnsubscribe: parsed.listUnsubscribe,
    listUnsubscribePost: parsed.listUnsubscribePost,
  };
}

/** An ENVELOPE whose subject or names came with bytes imapflow could not decode (see withUtf8Header). */
export function garbledEnvelope(m: FetchMessageObject): boolean {
  const env = m.envelope;
  return (
    env !== undefined && garbled(env.subject, ...[...(env.from ?? []), ...(env.to ?? [])].map((a) => a.name))
  );
}

/**
 * One summary from a FETCH of SUMMARY_QUERY. The thread id is the server's (X-GM-THRID / THREADID) when it
 * has one, else the root of the References chain (see threadRoot): stable across folders and re-syncs.
 */
export function toRemoteSummary(m: FetchMessageObject, preview: string): RemoteSummary {
  const env = m.envelope ?? {};
  const block = bytesOf(m.headers);
  const headers = block === undefined ? new Map<string, string>() : parseHeaderBlock(block);
  const messageId = messageIds(env.messageId)[0] ?? null;
  const from = env.from?.map(address).find((a) => a !== undefined);
  return {
    ...flagState(m),
    position: m.uid,
    threadId:
      m.threadId ?? threadRoot(messageIds(headers.get('references')), env.inReplyTo ?? null, messageId),
    internetMessageId: messageId,
    subject: env.subject ?? '',
    from: from ?? { address: '', name: env.from?.[0]?.name ?? '' },
    to: (env.to ?? []).map(address).filter((a) => a !== undefined),
    snippet: preview,
    date: messageDate(validDate(env.date), validDate(m.internalDate)),
    hasAttachments: hasAttachments(m.bodyStructure),
    size: m.size ?? 0,
    listId: listIdOf(headers.get('list-id')),
    listUnsubscribe: headers.get('list-unsubscribe') ?? null,
    listUnsubscribePost: isOneClick(headers.get('list-unsubscribe-post')),
  };
}
