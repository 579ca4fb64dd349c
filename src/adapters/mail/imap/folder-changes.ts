import type { ImapFlow, MailboxObject, SearchObject } from 'imapflow';
import { MailProviderError, type ChangeOptions as PortChangeOptions } from '../../../core/mail/mail-ports.ts';
import type { FlagState, FolderChanges, RemoteSummary, SyncCursor } from '../../../core/mail/mail-types.ts';
import { fetchSummaries, flagState } from './summary-fetch.ts';
import { fromUidSet } from './uid-set.ts';

/**
 * The per-folder sync step (RFC 3501 §2.3.1.1 UIDVALIDITY/UIDNEXT, RFC 7162 CONDSTORE/QRESYNC), in the shape of
 * EmailEngine's partial sync: new mail is `UID FETCH uidNext:*`; flag changes come from `CHANGEDSINCE` when the
 * server keeps mod-sequences, else from re-reading the flags of the known messages; expunges and moves are the
 * known UIDs a `UID SEARCH` no longer finds. Every function here expects the folder's mailbox lock to be held.
 */

export interface ChangeOptions extends PortChangeOptions {
  /** The mailbox lock was taken by a SELECT issued after this sync began, so its UIDNEXT/MODSEQ are current. */
  readonly justSelected?: boolean;
}

/** UIDs matching a search, ascending. ESEARCH (RFC 4731) answers with ranges, which matters at 100k results. */
export async function searchUids(client: ImapFlow, query: SearchObject): Promise<number[]> {
  const result = await client.search(query, { uid: true, returnOptions: ['ALL'] });
  if (result === false || result === undefined)
    throw new MailProviderError('The mail server could not search the folder.');
  return Array.isArray(result) ? [...result].sort((a, b) => a - b) : fromUidSet(result.all ?? '');
}

/**
 * The UIDs of the `count` newest messages with a UID below `below`, oldest first. With ESEARCH (RFC 4731) it asks
 * the sequence number of the first message at or past `below` (`SEARCH RETURN (MIN) UID below:*`) and the UIDs of
 * the `count` sequence numbers before it: two short answers, however large the folder. Listing every UID below
 * `below` instead made loading a 100,000-message folder 200 at a time quadratic (issue 21, P2). A message expunged
 * between the two searches shifts the page by one towards older mail, never past a message: the next page starts
 * below the oldest one returned.
 */
export async function olderUids(client: ImapFlow, below: number, count: number): Promise<number[]> {
  if (!client.capabilities.has('ESEARCH')) {
    const uids = (await searchUids(client, { uid: `1:${String(below - 1)}` })).filter((u) => u < below);
    return uids.slice(-count);
  }
  const first = await client.search({ uid: `${String(below)}:*` }, { returnOptions: ['MIN'] });
  if (first === false || first === undefined)
    throw new MailProviderError('The mail server could not search the folder.');
  const min = Array.isArray(first) ? first[0] : first.min;
  if (min === undefined) return []; // an empty folder
  // `below:*` also matches the newest message when every UID is below `below` (RFC 3501: n:* is *:n then), so the
  // page takes that sequence number too and drops what is not below.
  const from = Math.max(1, min - count);
  const uids = (await searchUids(client, { seq: `${String(from)}:${String(min)}` })).filter((u) => u < below);
  return uids.slice(-count);
}

/** HIGHESTMODSEQ as a decimal string when the server keeps mod-sequences for this folder, else null. */
function modseqOf(client: ImapFlow, mailbox: MailboxObject): string | null {
  if (!client.enabled.has('CONDSTORE') || mailbox.noModseq === true || mailbox.highestModseq === undefined)
    return null;
  return mailbox.highestModseq.toString();
}

function parseModseq(value: string | null): bigint | null {
  if (value === null || !/^\d+$/.test(value)) return null;
  return BigInt(value);
}

const validUid = (u: number): boolean => Number.isSafeInteger(u) && u > 0;

/** UIDNEXT from SELECT; 0 when the server left it out (allowed before IMAP4rev2). */
const uidNextOf = (mailbox: MailboxObject): number => (validUid(mailbox.uidNext) ? mailbox.uidNext : 0);

export async function folderChanges(
  client: ImapFlow,
  path: string,
  cursor: SyncCursor | null,
  opts: ChangeOptions,
): Promise<FolderChanges> {
  // Re-select when the folder was already open: UIDNEXT and HIGHESTMODSEQ are only fresh from SELECT/EXAMINE.
  const mailbox =
    opts.justSelected === true && client.mailbox !== false && client.mailbox.path === path
      ? client.mailbox
      : await client.mailboxOpen(path, { readOnly: true });
  const uidValidity = mailbox.uidValidity.toString(); // a BigInt; JSON and the database want a string
  const modseq = modseqOf(client, mailbox);
  if (cursor?.uidValidity !== uidValidity) return freshWindow(client, mailbox, modseq, opts);
  return incremental(client, mailbox, modseq, cursor, opts);
}

/**
 * Fetches summaries of `uids`, either collected or handed to `onAdded` batch by batch; either way it reports the
 * lowest and highest position fetched (the cursor needs them).
 */
async function fetchAdded(
  client: ImapFlow,
  uids: readonly number[],
  reset: boolean,
  onAdded: PortChangeOptions['onAdded'],
): Promise<{ added: RemoteSummary[]; low: number | undefined; high: number }> {
  let low: number | undefined;
  let high = 0;
  const seen = (batch: readonly RemoteSummary[]) => {
    for (const m of batch) {
      low = Math.min(low ?? m.position, m.position);
      high = Math.max(high, m.position);
    }
  };
  if (uids.length === 0) return { added: [], low, high };
  const added = await fetchSummaries(
    client,
    uids,
    onAdded === undefined
      ? undefined
      : async (batch) => {
          seen(batch);
          await onAdded(batch, reset);
        },
  );
  seen(added);
  return { added, low, high };
}

/** First sync, or UIDVALIDITY changed: the newest `windowSize` messages, by sequence number from the end. */
async function freshWindow(
  client: ImapFlow,
  mailbox: MailboxObject,
  modseq: string | null,
  opts: ChangeOptions,
): Promise<FolderChanges> {
  const uidValidity = mailbox.uidValidity.toString();
  const { windowSize } = opts;
  let uids: number[] = [];
  if (mailbox.exists > 0 && windowSize > 0) {
    const from = Math.max(1, mailbox.exists - Math.floor(windowSize) + 1);
    uids = (await searchUids(client, { seq: `${from}:*` })).slice(-windowSize);
  }
  const { added, low, high } = await fetchAdded(client, uids, true, opts.onAdded);
  // Mail that arrived between EXAMINE and the FETCH is already in `added`: start the next sync after it.
  const uidNext = Math.max(uidNextOf(mailbox), high + 1);
  return {
    cursor: { uidValidity, uidNext, highestModseq: modseq, windowLow: low ?? uidNext },
    reset: true,
    added,
    flags: [],
    removed: [],
  };
}

async function incremental(
  client: ImapFlow,
  mailbox: MailboxObject,
  modseq: string | null,
  cursor: SyncCursor,
  opts: ChangeOptions,
): Promise<FolderChanges> {
  const known = opts.knownRefs.map(Number).filter(validUid);
  const knownSet = new Set(known);
  // Known refs can reach below windowLow after load_older_messages; diff those too.
  const lowest = Math.max(
    1,
    known.reduce((min, u) => Math.min(min, u), cursor.windowLow),
  );

  const serverNext = uidNextOf(mailbox);
  const since = Math.max(1, cursor.uidNext);
  let fresh: number[] = [];
  // Without UIDNEXT from the server, ask anyway.
  if (mailbox.exists > 0 && (serverNext === 0 || serverNext > since)) {
    // `n:*` with n above every UID still matches the newest message (RFC 3501 §6.4.8), hence the filter.
    fresh = (await searchUids(client, { uid: `${since}:*` })).filter((u) => u >= since);
  }
  const { added, high: highest } = await fetchAdded(client, fresh, false, opts.onAdded);

  const before = parseModseq(cursor.highestModseq);
  const now = parseModseq(modseq);
  // A HIGHESTMODSEQ that went backwards (a restored server) cannot be trusted: re-read every known flag.
  const condstore = before !== null && now !== null && now >= before;
  let flags: FlagState[] = [];
  if (known.length > 0 && (!condstore || now > before)) {
    // With CONDSTORE only what changed since the cursor comes back; without it every known message's flags do.
    const changed = [];
    for await (const m of client.fetch(
      `${lowest}:*`,
      { uid: true, flags: true, labels: true },
      condstore ? { uid: true, changedSince: before } : { uid: true },
    )) {
      if (knownSet.has(m.uid)) changed.push(m);
    }
    flags = changed.map(flagState);
  }

  // One UID SEARCH over a constant-size range (not the known list: servers reject 100k-long UID sets); with
  // ESEARCH the answer is ranges too. Cheap enough to run always, so no reliance on expunges bumping MODSEQ.
  let removed: string[] = [];
  if (known.length > 0) {
    const present = new Set(await searchUids(client, { uid: `${lowest}:*` }));
    removed = known.filter((u) => !present.has(u)).map(String);
  }

  return {
    cursor: {
      uidValidity: cursor.uidValidity,
      uidNext: Math.max(since, serverNext, highest + 1),
      highestModseq: modseq,
      windowLow: cursor.windowLow,
    },
    reset: false,
    added,
    flags,
    removed,
  };
}
