import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImapConnector } from '../../src/adapters/mail/imap/imap-connector.ts';
import type { MailSession } from '../../src/core/mail/mail-ports.ts';
import type { MailCredential } from '../../src/core/mail/mail-types.ts';
import { generateMessages, seedMaildir, startDovecot } from '../rig/index.ts';
import type { Dovecot } from '../rig/index.ts';
import { silentStore } from '../rig/silent-store.ts';
import { startWireTap } from '../rig/wire-tap.ts';
import { imapClient } from '../support/imap-inbox.ts';

/**
 * Decision 0149: an IMAP flag change says which messages it found. A UID STORE passes over an expunged UID in
 * silence; the untagged FETCH answers name the messages it changed, and one UID SEARCH settles the rest only when a
 * UID asked about is in none of them — counted here on the wire, against Dovecot and against a server that answers a
 * STORE with no FETCH at all.
 */
let dovecot: Dovecot;
let users = 0;

beforeAll(async () => {
  dovecot = await startDovecot();
});
afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- beforeAll may have failed
  await dovecot?.stop();
});

async function account(): Promise<MailCredential> {
  const user = `found${String(++users)}`;
  const password = `pw-${user}`;
  await dovecot.addUser(user, password);
  await seedMaildir({ maildir: dovecot.maildirOf(user), messages: generateMessages(3, { seed: users }) });
  return { kind: 'password', username: user, password };
}

/** A session on `port` (Dovecot, or a relay in front of it) and the refs of the inbox's three messages. */
async function sessionOn(
  port: number,
  credential: MailCredential,
): Promise<{ s: MailSession; refs: string[] }> {
  const s = await new ImapConnector({ insecureHosts: [dovecot.host] }).connect(
    { host: dovecot.host, port },
    credential,
  );
  const window = await s.changes('INBOX', null, { windowSize: 10, knownRefs: [] });
  const refs = window.added.map((m) => m.ref).sort((a, b) => Number(a) - Number(b));
  expect(refs).toHaveLength(3);
  return { s, refs };
}

/** Another client deletes the message with this UID. */
async function deletedElsewhere(credential: MailCredential, ref: string): Promise<void> {
  if (credential.kind !== 'password') throw new Error('password only');
  const other = await imapClient(dovecot, credential.username, credential.password);
  try {
    const lock = await other.getMailboxLock('INBOX');
    try {
      await other.messageDelete(ref, { uid: true });
    } finally {
      lock.release();
    }
  } finally {
    await other.logout();
  }
}

/** What the service sent from its STORE on: the commands of the flag change. */
const fromTheStore = (sent: readonly string[]): string => {
  const all = sent.join('');
  return all.slice(all.indexOf('UID STORE'));
};

describe('an IMAP flag change says which messages it found (0149)', () => {
  it('a change every message answered costs no round trip beyond its STOREs', async () => {
    const credential = await account();
    const tap = await startWireTap({ host: dovecot.host, port: dovecot.port });
    const { s, refs } = await sessionOn(tap.port, credential);
    try {
      expect([...(await s.setFlags('INBOX', refs, ['\\Flagged', 'Clients'], ['\\Seen']))].sort()).toEqual(
        refs,
      );
      const change = fromTheStore(tap.sent);
      expect(change.match(/UID STORE/g)).toHaveLength(2);
      expect(change).not.toContain('SEARCH');
    } finally {
      await s.close();
      await tap.close();
    }
  });

  it('a message deleted by another client since is not found; one SEARCH settles it', async () => {
    const credential = await account();
    const tap = await startWireTap({ host: dovecot.host, port: dovecot.port });
    const { s, refs } = await sessionOn(tap.port, credential);
    try {
      await deletedElsewhere(credential, refs[1]!);
      expect([...(await s.setFlags('INBOX', refs, ['\\Flagged'], []))].sort()).toEqual([refs[0], refs[2]]);
      expect(fromTheStore(tap.sent).match(/UID SEARCH/g)).toHaveLength(1);
      // Already as asked is found too (Dovecot answers only the messages a STORE changed).
      expect([...(await s.setFlags('INBOX', [refs[0]!], ['\\Flagged'], []))]).toEqual([refs[0]]);
    } finally {
      await s.close();
      await tap.close();
    }
  });

  it('a server that answers a STORE with no FETCH: found, not found, as on any other', async () => {
    const credential = await account();
    const relay = await silentStore(dovecot.port);
    const { s, refs } = await sessionOn(relay.port, credential);
    try {
      await deletedElsewhere(credential, refs[2]!);
      expect([...(await s.setFlags('INBOX', refs, ['Clients'], ['\\Seen']))].sort()).toEqual([
        refs[0],
        refs[1],
      ]);
      expect(relay.stores()).toBe(2);
      expect(await s.flagsOf('INBOX', [refs[0]!, refs[1]!])).toEqual([
        expect.objectContaining({ ref: refs[0], labels: ['Clients'] }),
        expect.objectContaining({ ref: refs[1], labels: ['Clients'] }),
      ]);
    } finally {
      await s.close();
      await relay.close();
    }
  });

  it('a server that will not search: a change made is answered made, never failed', async () => {
    const credential = await account();
    const relay = await silentStore(dovecot.port);
    const { s, refs } = await sessionOn(relay.port, credential);
    try {
      await deletedElsewhere(credential, refs[2]!);
      relay.refuseSearch(true);
      // Nothing answered the STORE and the search was refused: every UID asked about counts, as before 0149.
      expect([...(await s.setFlags('INBOX', refs, ['\\Flagged'], []))].sort()).toEqual(refs);
      expect(await s.flagsOf('INBOX', [refs[0]!])).toEqual([expect.objectContaining({ starred: true })]);
    } finally {
      await s.close();
      await relay.close();
    }
  });
});
