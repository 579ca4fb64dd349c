import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImapConnector } from '../../src/adapters/mail/imap/imap-connector.ts';
import { MailAuthError } from '../../src/core/mail/mail-ports.ts';
import type { MailCredential } from '../../src/core/mail/mail-types.ts';
import { generateMessages, seedMaildir, startDovecot } from '../rig/index.ts';
import type { Dovecot } from '../rig/index.ts';
import { startWireTap } from '../rig/wire-tap.ts';
import { imapClient } from '../support/imap-inbox.ts';

/** Sessions of one account reuse a logged-in connection (connection-pool.ts, decision 0026), counted at Dovecot. */
let dovecot: Dovecot;
let users = 0;

beforeAll(async () => {
  dovecot = await startDovecot();
});
afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- beforeAll may have failed
  await dovecot?.stop();
});

async function account(messages = 3): Promise<{ user: string; credential: MailCredential }> {
  const user = `reuse${String(++users)}`;
  const password = `pw-${user}`;
  await dovecot.addUser(user, password);
  await seedMaildir({
    maildir: dovecot.maildirOf(user),
    messages: generateMessages(messages, { seed: users }),
  });
  return { user, credential: { kind: 'password', username: user, password } };
}

const endpoint = () => ({ host: dovecot.host, port: dovecot.port });
const serverCount = async (user: string) => (await dovecot.connections()).get(user) ?? 0;

async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function readOne(connector: ImapConnector, credential: MailCredential): Promise<string> {
  const s = await connector.connect(endpoint(), credential);
  try {
    const [first] = await s.fetchOlder('INBOX', 1_000_000, 1);
    const full = await s.fetchMessage('INBOX', first!.ref);
    return full!.summary.subject;
  } finally {
    await s.close();
  }
}

describe('IMAP connection reuse', () => {
  it('one login serves a run of sessions, and logs out once idle', async () => {
    const { user, credential } = await account();
    const connector = new ImapConnector({ insecureHosts: [dovecot.host], pooledIdleMs: 500 });
    const subjects = new Set<string>();
    for (let i = 0; i < 20; i++) subjects.add(await readOne(connector, credential));
    expect(subjects.size).toBe(1);
    expect(connector.openConnections()).toBe(1);
    expect(await serverCount(user)).toBe(1);
    // unused for pooledIdleMs: logged out, its slot free
    await until(async () => connector.openConnections() === 0 && (await serverCount(user)) === 0);
  });

  it('concurrent sessions each get a connection, and the pool never holds more than the cap', async () => {
    const { user, credential } = await account();
    const connector = new ImapConnector({ insecureHosts: [dovecot.host], maxConnectionsPerHost: 3 });
    await Promise.all(Array.from({ length: 12 }, () => readOne(connector, credential)));
    expect(connector.openConnections()).toBeLessThanOrEqual(3);
    expect(await serverCount(user)).toBeLessThanOrEqual(3);
    connector.close();
    await until(async () => connector.openConnections() === 0 && (await serverCount(user)) === 0);
  });

  it('a login is reused for a bounded time: after it, a password changed at the server is noticed', async () => {
    const { user, credential } = await account();
    const connector = new ImapConnector({ insecureHosts: [dovecot.host], maxLoginAgeMs: 1500 });
    await readOne(connector, credential);
    await dovecot.addUser(user, 'changed at the server');
    await new Promise((r) => setTimeout(r, 1200)); // Dovecot re-reads passwd files at most once a second
    expect(await readOne(connector, credential)).not.toBe(''); // the login from before still serves
    await new Promise((r) => setTimeout(r, 400));
    await expect(readOne(connector, credential)).rejects.toBeInstanceOf(MailAuthError);
    connector.close();
  });

  it('a changed password is never served by the old login', async () => {
    const { credential } = await account();
    const connector = new ImapConnector({ insecureHosts: [dovecot.host] });
    await readOne(connector, credential);
    expect(connector.openConnections()).toBe(1);
    const wrong: MailCredential = { ...credential, password: 'not the password' } as MailCredential;
    await expect(connector.connect(endpoint(), wrong)).rejects.toBeInstanceOf(MailAuthError);
    connector.close();
  });

  it('a watch that needs a slot held by a waiting connection gets it at once', async () => {
    const { credential } = await account();
    const connector = new ImapConnector({ insecureHosts: [dovecot.host], maxConnectionsPerHost: 2 });
    await Promise.all([readOne(connector, credential), readOne(connector, credential)]);
    expect(connector.openConnections()).toBe(2);
    const started = Date.now();
    const stop = await connector.watch(endpoint(), credential, 'INBOX', () => undefined);
    expect(Date.now() - started).toBeLessThan(5_000); // not the 20 s a pooled connection would wait
    expect(connector.openConnections()).toBe(2);
    await stop();
    connector.close();
  });

  it('a connection the server closed while it waited is not handed out', async () => {
    const { user, credential } = await account();
    const connector = new ImapConnector({ insecureHosts: [dovecot.host] });
    await readOne(connector, credential);
    await dovecot.kick(user);
    await until(() => connector.openConnections() === 0);
    expect(await readOne(connector, credential)).not.toBe('');
    connector.close();
  });

  it('a run of sessions reading one folder opens it once: the pooled login keeps it open read-only', async () => {
    const { credential } = await account();
    const tap = await startWireTap(dovecot);
    const connector = new ImapConnector({ insecureHosts: ['127.0.0.1'] });
    const via = { host: '127.0.0.1', port: tap.port };
    try {
      for (let i = 0; i < 10; i++) {
        const s = await connector.connect(via, credential);
        const [first] = await s.fetchOlder('INBOX', 1_000_000, 1);
        expect((await s.fetchMessage('INBOX', first!.ref))?.summary.subject).not.toBe('');
        await s.close();
      }
      expect(tap.sent).toHaveLength(1); // one login
      const commands = tap.sent[0]!.split('\r\n').map((l) => l.split(' ')[1]);
      expect(commands.filter((c) => c === 'EXAMINE' || c === 'SELECT')).toEqual(['EXAMINE']);
      expect(commands.filter((c) => c === 'CLOSE' || c === 'UNSELECT')).toEqual([]);
      // A sync still sees the folder as it is now: it opens it afresh (UIDNEXT, HIGHESTMODSEQ).
      const s = await connector.connect(via, credential);
      await s.changes('INBOX', null, { windowSize: 10, knownRefs: [] });
      await s.close();
      const after = tap.sent[0]!.split('\r\n').map((l) => l.split(' ')[1]);
      expect(after.filter((c) => c === 'EXAMINE' || c === 'SELECT')).toEqual(['EXAMINE', 'EXAMINE']);
    } finally {
      connector.close();
      await tap.close();
    }
  });

  it('a kept folder whose flags another client changed meanwhile still reads right: message, older page, flags', async () => {
    const { user, credential } = await account(6);
    const connector = new ImapConnector({ insecureHosts: [dovecot.host] });
    try {
      const first = await connector.connect(endpoint(), credential);
      const all = await first.fetchOlder('INBOX', 1_000_000, 6);
      await first.close(); // back to the pool with INBOX open read-only
      // Another client changes every message's flags: the kept session hears of it with its next command.
      const other = await imapClient(dovecot, user, `pw-${user}`);
      await other.mailboxOpen('INBOX');
      await other.messageFlagsAdd('1:*', ['\\Flagged']);
      await other.logout();
      const s = await connector.connect(endpoint(), credential);
      try {
        // The first command after the change (a server may precede its answer with unsolicited FETCH responses).
        const full = await s.fetchMessage('INBOX', all[5]!.ref);
        expect(full?.summary.subject).toBe(all[5]!.subject);
        const older = await s.fetchOlder('INBOX', Number(all[2]!.ref), 2);
        expect(older.map((m) => m.ref)).toEqual([all[3]!.ref, all[4]!.ref]);
        expect(older.every((m) => m.internetMessageId !== null)).toBe(true);
        const flags = await s.flagsOf('INBOX', [all[0]!.ref]);
        expect(flags).toEqual([expect.objectContaining({ ref: all[0]!.ref, starred: true })]);
      } finally {
        await s.close();
      }
    } finally {
      connector.close();
    }
  });

  it('a reused connection may keep a folder open read-only: an APPEND after a read still keeps its flags', async () => {
    const { user, credential } = await account();
    const connector = new ImapConnector({ insecureHosts: [dovecot.host] });
    await readOne(connector, credential); // EXAMINE INBOX, then back to the pool
    await until(() => connector.openConnections() === 1);
    const s = await connector.connect(endpoint(), credential);
    const placed = await s.append(
      'INBOX',
      Buffer.from('Subject: kept\r\n\r\nbody\r\n'),
      ['\\Draft', '\\Seen'],
      new Date(),
    );
    await s.close();
    expect(connector.openConnections()).toBe(1); // the same login served both sessions
    const check = await connector.connect(endpoint(), credential);
    try {
      const [state] = await check.flagsOf('INBOX', [placed!.ref]);
      expect(state).toMatchObject({ unread: false });
      expect(await serverCount(user)).toBe(1);
    } finally {
      await check.close();
      connector.close();
    }
  });

  it('a connection that opened a folder for writing is logged out, never closed with CLOSE', async () => {
    const { user, credential } = await account(2);
    const connector = new ImapConnector({ insecureHosts: [dovecot.host] });
    const s = await connector.connect(endpoint(), credential);
    const [first] = await s.fetchOlder('INBOX', 1_000_000, 1);
    await s.setFlags('INBOX', [first!.ref], ['\\Flagged'], []);
    await s.close();
    await until(async () => connector.openConnections() === 0 && (await serverCount(user)) === 0);
    connector.close();
  });

  it('a session left mid-download is logged out, not reused', async () => {
    const { user, credential } = await account(1);
    const connector = new ImapConnector({ insecureHosts: [dovecot.host] });
    const s = await connector.connect(endpoint(), credential);
    const [first] = await s.fetchOlder('INBOX', 1_000_000, 1);
    const full = await s.fetchMessage('INBOX', first!.ref);
    const part = full!.attachments[0];
    if (part !== undefined) {
      const content = await s.openAttachment('INBOX', first!.ref, part.partId);
      expect(content).toBeDefined();
      await s.close(); // the download is still open
      await until(async () => connector.openConnections() === 0 && (await serverCount(user)) === 0);
    } else {
      await s.close();
    }
    connector.close();
  });

  // Found by the safety model on Dovecot (seed 204662483; the account's list message answered message_not_found to
  // propose_unsubscribe after an agent had moved it): a kept login still has the folder its last session read
  // EXAMINEd, and Dovecot answers a UID FETCH from that view — mail moved in since by another connection is not in
  // it until a command lets the server tell. A read found nothing, and `get_message` then dropped the row.
  it('a reused login sees mail that arrived in its open folder while it waited', async () => {
    const { user, credential } = await account(3);
    const connector = new ImapConnector({ insecureHosts: [dovecot.host] });
    const direct = await imapClient(dovecot, user, `pw-${user}`);
    try {
      await direct.mailboxCreate('Archive').catch(() => undefined);
      // A session reads Archive (nothing there yet) and gives its login back with Archive open.
      const first = await connector.connect(endpoint(), credential);
      expect(await first.fetchOlder('Archive', 1_000_000, 10)).toEqual([]);
      await first.close();
      expect(connector.openConnections()).toBe(1);
      // Another connection moves a message into Archive.
      await direct.mailboxOpen('INBOX');
      const moved = await direct.messageMove('1', 'Archive', { uid: true });
      const uid = moved === false ? undefined : moved.uidMap?.get(1);
      expect(uid).toBeDefined();
      // The next session reuses that login, and finds the message where the mover put it.
      const next = await connector.connect(endpoint(), credential);
      try {
        expect(connector.openConnections()).toBe(1);
        expect(await next.fetchRaw('Archive', String(uid))).toBeDefined();
        expect((await next.fetchMessage('Archive', String(uid)))?.summary.ref).toBe(String(uid));
      } finally {
        await next.close();
      }
    } finally {
      await direct.logout();
      connector.close();
    }
  });
});
