import type { ImapFlow } from 'imapflow';
import { FolderGoneError, MailProviderError, type Placed } from '../../../core/mail/mail-ports.ts';
import { toUidSet } from './uid-set.ts';

/** UIDs of refs, skipping anything that is not a UID (they cannot name a message here). */
export function uidsOf(refs: readonly string[]): number[] {
  return refs.map(Number).filter((n) => Number.isInteger(n) && n > 0);
}

/** RFC 6851 MOVE (imapflow falls back to COPY + EXPUNGE); the UID map comes from COPYUID (RFC 4315). */
export async function moveMessages(
  client: ImapFlow,
  uids: readonly number[],
  toPath: string,
): Promise<Map<string, Placed>> {
  const placed = new Map<string, Placed>();
  if (uids.length === 0) return placed;
  const result = await client.messageMove(toUidSet(uids), toPath, { uid: true });
  // imapflow answers false for any refusal or failure of the MOVE (a UID that is gone is no refusal: the server
  // answers OK and moves nothing). Refused is not "not found": the destination is looked up to say which it was.
  if (result === false) throw await refusedMove(client, toPath);
  for (const [from, to] of result.uidMap ?? new Map<number, number>())
    placed.set(String(from), { ref: String(to), position: to });
  return placed;
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

export async function changeFlags(
  client: ImapFlow,
  uids: readonly number[],
  add: readonly string[],
  remove: readonly string[],
): Promise<void> {
  if (uids.length === 0) return;
  const set = toUidSet(uids);
  if (add.length > 0) await client.messageFlagsAdd(set, [...add], { uid: true });
  if (remove.length > 0) await client.messageFlagsRemove(set, [...remove], { uid: true });
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
