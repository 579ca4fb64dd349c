import type { FlagsEvent, ImapFlow } from 'imapflow';
import { FolderGoneError, MailProviderError, type Placed } from '../../../core/mail/mail-ports.ts';
import { toUidSet } from './uid-set.ts';

/** UIDs of refs, skipping anything that is not a UID (they cannot name a message here). */
export function uidsOf(refs: readonly string[]): number[] {
  return refs.map(Number).filter((n) => Number.isInteger(n) && n > 0);
}

/**
 * RFC 6851 MOVE (imapflow falls back to COPY, \Deleted and EXPUNGE, sparing what others marked: see
 * sparingOthersDeleted); the UID map comes from COPYUID (RFC 4315).
 */
export async function moveMessages(
  client: ImapFlow,
  uids: readonly number[],
  toPath: string,
): Promise<Map<string, Placed>> {
  const placed = new Map<string, Placed>();
  if (uids.length === 0) return placed;
  const move = () => client.messageMove(toUidSet(uids), toPath, { uid: true });
  const result = client.capabilities.has('MOVE')
    ? await move()
    : await sparingOthersDeleted(client, uids, move);
  // imapflow answers false for any refusal or failure of the MOVE (a UID that is gone is no refusal: the server
  // answers OK and moves nothing). Refused is not "not found": the destination is looked up to say which it was.
  if (result === false) throw await refusedMove(client, toPath);
  for (const [from, to] of result.uidMap ?? new Map<number, number>())
    placed.set(String(from), { ref: String(to), position: to });
  return placed;
}

/** Removes these messages of the selected folder for good (\Deleted and EXPUNGE), sparing what others marked. */
export async function deleteMessages(client: ImapFlow, uids: readonly number[]): Promise<void> {
  if (uids.length === 0) return;
  const removed = await sparingOthersDeleted(client, uids, () =>
    client.messageDelete(toUidSet(uids), { uid: true }),
  );
  if (!removed) throw new MailProviderError('The mail server did not remove the message.');
}

/**
 * Runs `expunging` — a command that ends in EXPUNGE — so that it removes only `uids`. With UIDPLUS it is UID EXPUNGE
 * of those (RFC 4315). Without, EXPUNGE removes every message marked \Deleted in the folder (RFC 3501 §6.4.3): the
 * person's own mail deleted in a client that marks and keeps until asked (Thunderbird's "just mark it as deleted",
 * mutt, Alpine) would go for good with an agent's archive of another message (decision 0071). So those others are
 * unmarked first and marked again after, whatever happened between. Another client marking a message in the few
 * milliseconds between the search and the EXPUNGE is the one case this cannot see.
 */
export async function sparingOthersDeleted<T>(
  client: ImapFlow,
  uids: readonly number[],
  expunging: () => Promise<T>,
): Promise<T> {
  if (client.capabilities.has('UIDPLUS')) return expunging();
  const found: unknown = await client.search({ deleted: true }, { uid: true });
  if (!Array.isArray(found))
    throw new MailProviderError('The mail server could not say which messages are marked deleted.');
  const ours = new Set(uids);
  const others = (found as number[]).filter((uid) => !ours.has(uid));
  if (others.length === 0) return expunging();
  const set = toUidSet(others);
  if (!(await client.messageFlagsRemove(set, ['\\Deleted'], { uid: true })))
    throw new MailProviderError(
      'The mail server refused to set aside the messages marked deleted in the folder.',
    );
  try {
    return await expunging();
  } finally {
    // Not marked again (the connection broke): they show as not deleted, nothing is lost; and what `expunging` did
    // or failed to do is what the caller must hear, not this.
    await client.messageFlagsAdd(set, ['\\Deleted'], { uid: true }).catch(() => false);
  }
}

async function refusedMove(client: ImapFlow, toPath: string): Promise<Error> {
  const gone = await client.status(toPath, { messages: true }).then(
    () => false,
    (e: unknown) => {
      // imapflow's STATUS confirms a NO with a LIST: an empty one is this code.
      if (typeof e === 'object' && e !== null && 'code' in e && e.code === 'NotFound') return true;
      throw e;
    },
  );
  return gone
    ? new FolderGoneError(
        'Could not move the messages: the folder they were to go to is no longer in the mailbox.',
      )
    : new MailProviderError('Could not move the messages: the mail server refused.');
}

/** A character no IMAP keyword holds: a keyword is an atom (RFC 3501 §9), printable ASCII without ( ) { % * " \ ]. */
const NOT_ATOM = /[^\x21-\x7e]|[(){%*"\\\]]/;

/**
 * Flags and keywords (labels) set and cleared on these messages; answers the UIDs found in the folder. imapflow
 * answers `false` when the server refuses a STORE — Dovecot answers BAD to a keyword that is not an atom and NO to one
 * longer than it keeps — and that was taken for done: the label was reported made and the index said so until the
 * next sync. A refusal now fails the change, in words (decision 0073); a label no IMAP server can keep is refused
 * before it is sent.
 *
 * Which were found (decision 0149): a UID STORE passes over an expunged UID in silence, but a STORE without `.SILENT`
 * is answered with an untagged FETCH for each message it found (RFC 3501 §6.4.6, a SHOULD), and a FETCH caused by a
 * UID command carries the UID (§6.4.8, a MUST). Those are the ones found. Only when a UID asked about is in none of
 * them — gone, or a server that answers only the messages it changed — does one UID SEARCH settle the rest, so the
 * usual change costs no extra round trip and no server's shortcut turns a message that is there into "not found".
 */
export async function changeFlags(
  client: ImapFlow,
  uids: readonly number[],
  add: readonly string[],
  remove: readonly string[],
): Promise<ReadonlySet<number>> {
  if (uids.length === 0) return new Set();
  const odd = [...add, ...remove].find((f) => !f.startsWith('\\') && (f === '' || NOT_ATOM.test(f)));
  if (odd !== undefined)
    throw new MailProviderError(
      `an IMAP mailbox keeps a label as a keyword, one word of plain ASCII letters, digits and marks; “${odd}” cannot be one. Use a name such as ${asciiName(odd)}`,
    );
  const set = toUidSet(uids);
  const path = client.mailbox === false ? undefined : client.mailbox.path;
  const asked = new Set(uids);
  const found = new Set<number>();
  // Any FETCH naming a UID of this folder shows it is there, whichever command caused it.
  const heard = (e: FlagsEvent) => {
    if (e.path === path && e.uid !== undefined && asked.has(e.uid)) found.add(e.uid);
  };
  client.on('flags', heard);
  try {
    if (add.length > 0 && !(await client.messageFlagsAdd(set, [...add], { uid: true })))
      throw new MailProviderError(
        'the mail server did not set the flag or label (a label longer than it keeps, or one this folder does not allow)',
      );
    if (remove.length > 0 && !(await client.messageFlagsRemove(set, [...remove], { uid: true })))
      throw new MailProviderError('the mail server did not clear the flag or label');
  } finally {
    client.off('flags', heard);
  }
  const unheard = uids.filter((uid) => !found.has(uid));
  if (unheard.length === 0) return found;
  // The change is made: a server that will not answer the search (NO) leaves the rest counted as found, as before
  // this asked, rather than a change made answered as failed. A connection lost here fails the session's step.
  const there = await client.search({ uid: toUidSet(unheard) }, { uid: true }).catch(() => false as const);
  if (there === false || there === undefined) return new Set(uids);
  for (const uid of there) if (asked.has(uid)) found.add(uid);
  return found;
}

/** A suggestion in the keyword alphabet for a label that is not one: accents dropped, the rest to `-`. */
function asciiName(label: string): string {
  const name = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(new RegExp(NOT_ATOM.source, 'g'), '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
  return name === '' ? '“Label1”.' : `“${name}”.`;
}

/** APPEND; the new UID comes from APPENDUID when the server has UIDPLUS. */
export async function appendMessage(
  client: ImapFlow,
  path: string,
  raw: Uint8Array,
  flags: readonly string[],
  date: Date,
): Promise<Placed | undefined> {
  // imapflow filters an APPEND's flags by the selected folder's permanent flags, none for a folder opened read-only
  // (by this session, or by the one that used the pooled connection before): close it first. CLOSE removes nothing
  // from a read-only folder (RFC 3501 §6.4.2).
  if (client.mailbox !== false && client.mailbox.readOnly === true) {
    // Typed boolean, but it resolves undefined when nothing was selected: compared, not trusted.
    const closed: unknown = await client.mailboxClose().catch(() => false);
    const open: unknown = client.mailbox; // read again: the narrowing above predates the CLOSE
    if (closed !== true || open !== false)
      throw new MailProviderError('The mail server could not close the folder before saving the message.');
  }
  const result = await client.append(path, Buffer.from(raw), [...flags], date);
  if (result === false || result.uid === undefined) return undefined;
  return { ref: String(result.uid), position: result.uid };
}
