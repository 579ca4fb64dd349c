import type { FetchMessageObject, FetchQueryObject, ImapFlow } from 'imapflow';
import type { Placed } from '../../../core/mail/mail-ports.ts';
import { parseHeaderBlock } from '../mime/header-fields.ts';
import { bytesOf } from './fetched-bytes.ts';
import { toUidSet } from './uid-set.ts';

/**
 * Where moved messages landed, on a server that does not say (decision 0080). With UIDPLUS (RFC 4315) a COPY or MOVE
 * answers COPYUID, the new UID of each message; a server without it (hMailServer, older Exchange and UW-IMAP) answers
 * OK and nothing more, and the service could neither point its index at the copies nor keep an undo handle for them:
 * every archive, trash and spam of such a mailbox was reported "not found" and could not be undone, though the
 * mailbox had made it.
 *
 * So, before the move, what identifies each message — its Message-ID, size and internal date, which a copy keeps
 * (RFC 3501 §6.4.7) — and the destination's next UID; after it, the destination's messages from that UID on, matched
 * to them in UID order (a server gives copies UIDs in the order of the set copied, so twins pair in that order).
 */
export interface BeforeMove {
  readonly uidNext: number;
  /** Identity by source UID. */
  readonly identities: ReadonlyMap<number, string>;
}

const IDENTITY_QUERY: FetchQueryObject = {
  uid: true,
  size: true,
  internalDate: true,
  headers: ['message-id'],
};

function identity(m: FetchMessageObject): string {
  const block = bytesOf(m.headers);
  const messageId = block === undefined ? '' : (parseHeaderBlock(block).get('message-id') ?? '');
  const date = m.internalDate instanceof Date ? m.internalDate.getTime() : (m.internalDate ?? '');
  return `${messageId.trim()}\u0000${String(m.size ?? '')}\u0000${String(date)}`;
}

/** Read in the source folder, before the move; undefined when the destination does not say its next UID. */
export async function beforeMove(
  client: ImapFlow,
  uids: readonly number[],
  toPath: string,
): Promise<BeforeMove | undefined> {
  const status = await client.status(toPath, { uidNext: true }).catch(() => false as const);
  if (status === false || status.uidNext === undefined) return undefined;
  const identities = new Map<number, string>();
  const wanted = new Set(uids);
  for await (const m of client.fetch(toUidSet(uids), IDENTITY_QUERY, { uid: true }))
    if (wanted.delete(m.uid)) identities.set(m.uid, identity(m));
  return { uidNext: status.uidNext, identities };
}

/** Read in the destination folder, after the move: where each of `missing` (source UIDs) landed, as far as found. */
export async function landedAfterMove(
  client: ImapFlow,
  before: BeforeMove,
  missing: readonly number[],
): Promise<Map<number, Placed>> {
  const arrived: { uid: number; identity: string }[] = [];
  // `n:*` names the last message even when its UID is below n (RFC 3501 §9): only UIDs from n on are arrivals.
  for await (const m of client.fetch(`${String(before.uidNext)}:*`, IDENTITY_QUERY, { uid: true }))
    if (m.uid >= before.uidNext) arrived.push({ uid: m.uid, identity: identity(m) });
  arrived.sort((a, b) => a.uid - b.uid);
  const placed = new Map<number, Placed>();
  const taken = new Set<number>();
  for (const from of [...missing].sort((a, b) => a - b)) {
    const id = before.identities.get(from);
    const to = arrived.find((a) => !taken.has(a.uid) && a.identity === id);
    if (id === undefined || to === undefined) continue;
    taken.add(to.uid);
    placed.set(from, { ref: String(to.uid), position: to.uid });
  }
  return placed;
}
