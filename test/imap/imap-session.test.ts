import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImapConnector } from '../../src/adapters/mail/imap/imap-connector.ts';
import { MailAuthError, MailProviderError } from '../../src/core/mail/mail-ports.ts';
import type { MailSession } from '../../src/core/mail/mail-ports.ts';
import { mailSessionContract } from '../../src/core/mail/mail-session.contract.ts';
import { mailWriterContract } from '../../src/core/mail/mail-writer.contract.ts';
import type { MailHarness } from '../../src/core/mail/mail-session.contract.ts';
import type { MailCredential, RemoteSummary } from '../../src/core/mail/mail-types.ts';
import { generateMessages, seedMaildir, startDovecot } from '../rig/index.ts';
import { PLAIN_IMAP_SERVER } from '../support/mail-backends.ts';
import type { Dovecot, GeneratedMessage } from '../rig/index.ts';

/**
 * One Dovecot for the whole file, and one as plain as IMAP4rev1 allows (no UIDPLUS: it never says where a copy or an
 * append landed, decision 0080) for the writer contract; every harness gets a fresh account, so cases never see each
 * other's mail.
 */
let dovecot: Dovecot;
let plain: Dovecot;
let users = 0;

beforeAll(async () => {
  [dovecot, plain] = await Promise.all([startDovecot(), startDovecot(PLAIN_IMAP_SERVER)]);
});
afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- beforeAll may have failed
  await Promise.all([dovecot?.stop(), plain?.stop()]);
});

async function newAccount(server = dovecot): Promise<{ user: string; credential: MailCredential }> {
  const user = `user${++users}`;
  const password = `pw-${user}-${Math.random().toString(36).slice(2)}`;
  await server.addUser(user, password);
  return { user, credential: { kind: 'password', username: user, password } };
}

const endpoint = (server = dovecot): { host: string; port: number } => ({
  host: server.host,
  port: server.port,
});
const loopbackConnector = (opts: { maxConnectionsPerHost?: number } = {}): ImapConnector =>
  new ImapConnector({ insecureHosts: [dovecot.host], ...opts });

/** "Another mail client" on the same account. */
async function otherClient(credential: MailCredential, server = dovecot): Promise<ImapFlow> {
  if (credential.kind !== 'password') throw new Error('password only');
  const client = new ImapFlow({
    host: server.host,
    port: server.port,
    secure: false,
    doSTARTTLS: false,
    logger: false,
    disableAutoIdle: true,
    auth: { user: credential.username, pass: credential.password },
  });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function imapHarness(server = dovecot): Promise<MailHarness> {
  const { credential } = await newAccount(server);
  const admin = await otherClient(credential, server);
  const connector = loopbackConnector();
  const inFolder = async (
    folder: string,
    messageId: string,
    fn: (uid: string) => Promise<unknown>,
  ): Promise<void> => {
    const lock = await admin.getMailboxLock(folder);
    try {
      const uids = await admin.search({ header: { 'message-id': messageId } }, { uid: true });
      if (!Array.isArray(uids) || uids.length !== 1) throw new Error(`${messageId} not found in ${folder}`);
      await fn(String(uids[0]));
    } finally {
      lock.release();
    }
  };
  return {
    inboxPath: 'INBOX',
    archivePath: 'Archive',
    session: () => connector.connect(endpoint(server), credential),
    async append(folder, raw, opts) {
      await admin.append(folder, raw, opts?.flags ?? [], opts?.date);
    },
    setFlags: (folder, id, flags) =>
      inFolder(folder, id, (uid) => admin.messageFlagsSet(uid, flags, { uid: true })),
    expunge: (folder, id) => inFolder(folder, id, (uid) => admin.messageDelete(uid, { uid: true })),
    moveElsewhere: (folder, id, to) =>
      inFolder(folder, id, (uid) => admin.messageMove(uid, to, { uid: true })),
    async resetUidValidity(folder) {
      await admin.mailboxDelete(folder);
      // Dovecot re-creates special-use folders with `auto = subscribe` by itself; either way it gets a new UIDVALIDITY.
      await admin.mailboxCreate(folder).catch(() => undefined);
    },
    async close() {
      await admin.logout();
    },
  };
}

mailSessionContract('IMAP (Dovecot)', () => imapHarness(), { reset: true });
mailWriterContract('IMAP (Dovecot)', () => imapHarness());
mailWriterContract('IMAP (a plain IMAP4rev1 server)', () => imapHarness(plain));

describe('IDLE watcher', () => {
  // Dovecot tells a QRESYNC session about expunges with VANISHED, which imapflow 2.1.2 does not count off its
  // EXISTS total: the next new message then brings the same total again and raised no event — the watcher went
  // deaf after the first message another client moved away. The watcher's connection does without QRESYNC.
  it('hears new mail after another client moved a message away, again and again', async () => {
    const { credential } = await newAccount();
    const admin = await otherClient(credential);
    const raw = generateMessages(4, { seed: 41 });
    for (const m of raw.slice(0, 2)) await admin.append('INBOX', m.raw, []);
    let changes = 0;
    const stop = await loopbackConnector().watch(endpoint(), credential, 'INBOX', () => {
      changes++;
    });
    const heard = async (before: number) => {
      const deadline = Date.now() + 5000;
      while (changes === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      return changes > before;
    };
    try {
      for (const m of raw.slice(2)) {
        const lock = await admin.getMailboxLock('INBOX');
        try {
          await admin.messageMove('1', 'Archive');
        } finally {
          lock.release();
        }
        let before = changes;
        expect(await heard(before)).toBe(true);
        await new Promise((r) => setTimeout(r, 100)); // let the move's notifications settle first
        before = changes;
        await admin.append('INBOX', m.raw, []);
        expect(await heard(before)).toBe(true);
      }
    } finally {
      await stop();
      await admin.logout();
    }
  });
});

describe('ImapConnector', () => {
  it('refuses private addresses unless the host is allowlisted', async () => {
    const { credential } = await newAccount();
    const guarded = new ImapConnector();
    for (const host of ['127.0.0.1', 'localhost', '::ffff:127.0.0.1', '[::1]']) {
      const failure = await guarded.testLogin({ host, port: dovecot.port }, credential);
      expect(failure?.reason, host).toBe('refused_host');
    }
    await expect(guarded.connect(endpoint(), credential)).rejects.toBeInstanceOf(MailProviderError);
  });

  it('requires STARTTLS on a plaintext port unless the host is allowlisted', async () => {
    const { credential } = await newAccount();
    // Treat loopback as if it were a public address, so only the TLS rule stands between us and the server.
    const strict = new ImapConnector({ addressPolicy: () => true });
    const failure = await strict.testLogin(endpoint(), credential);
    expect(failure?.reason).toBe('tls_required');
    await expect(strict.connect(endpoint(), credential)).rejects.toBeInstanceOf(MailProviderError);
  });

  it('reports an unreachable server', async () => {
    const { credential } = await newAccount();
    const failure = await loopbackConnector().testLogin({ host: dovecot.host, port: 1 }, credential);
    expect(failure?.reason).toBe('unreachable');
  });

  it('queues connections beyond the per-account limit; watches count and give their slot back', async () => {
    const { credential } = await newAccount();
    const connector = loopbackConnector({ maxConnectionsPerHost: 2 });
    const first = await connector.connect(endpoint(), credential);
    const stop = await first.watch('INBOX', () => undefined);
    expect(connector.activeConnections(endpoint(), credential)).toBe(2);
    let second: MailSession | undefined;
    const pending = connector.connect(endpoint(), credential).then((s) => (second = s));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(second).toBeUndefined();
    await stop();
    await pending;
    expect(second).toBeDefined();
    await first.close();
    await second?.close();
    // Both logins wait for the account's next session (connection-reuse.test.ts) until the connector closes.
    expect(connector.activeConnections(endpoint(), credential)).toBeLessThanOrEqual(2);
    connector.close();
    for (let i = 0; i < 100 && connector.activeConnections(endpoint(), credential) > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(connector.activeConnections(endpoint(), credential)).toBe(0);
  });

  it('reads a message over 2 MB from its header and text parts, never its attachment', async () => {
    const { credential } = await newAccount();
    const admin = await otherClient(credential);
    const big = Buffer.alloc(3 * 1024 * 1024, 7)
      .toString('base64')
      .replace(/.{76}/g, '$&\r\n');
    const raw =
      'From: "Zoë Sender" <zoe@example.test>\r\nTo: me@example.test\r\nCc: Ann <ann@example.test>\r\n' +
      'Reply-To: replies@example.test\r\nSubject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=\r\nMessage-ID: <big@example.test>\r\n' +
      'In-Reply-To: <earlier@example.test>\r\nReferences: <first@example.test> <earlier@example.test>\r\n' +
      'Date: Mon, 23 Nov 2026 09:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed;\r\n boundary="outer"\r\n\r\n' +
      '--outer\r\nContent-Type: multipart/alternative; boundary="alt"\r\n\r\n' +
      '--alt\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nGr=FC=DFe, the file.\r\n' +
      '--alt\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Grüße, the <b>file</b>.</p>\r\n--alt--\r\n' +
      '--outer\r\nContent-Type: application/octet-stream; name="big.bin"\r\nContent-Disposition: attachment; filename="big.bin"\r\n' +
      `Content-Transfer-Encoding: base64\r\n\r\n${big}\r\n--outer--\r\n`;
    await admin.append('INBOX', Buffer.from(raw, 'utf8'));
    await admin.logout();
    const session = await loopbackConnector().connect(endpoint(), credential);
    try {
      const [summary] = await session.fetchOlder('INBOX', 1_000_000, 1);
      const full = await session.fetchMessage('INBOX', summary!.ref);
      expect(full?.text.trim()).toBe('Grüße, the file.');
      expect(full?.html).toContain('<b>file</b>');
      expect(full?.cc).toEqual([{ address: 'ann@example.test', name: 'Ann' }]);
      expect(full?.replyTo).toEqual([{ address: 'replies@example.test', name: '' }]);
      expect(full?.inReplyTo).toBe('<earlier@example.test>');
      expect(full?.references).toEqual(['<first@example.test>', '<earlier@example.test>']);
      expect(full?.summary.subject).toBe('Grüße');
      expect(full?.attachments).toMatchObject([{ filename: 'big.bin' }]);
      // estimated from the encoded size, as the list of attachments always is
      expect(Math.abs((full?.attachments[0]?.size ?? 0) - 3 * 1024 * 1024)).toBeLessThan(1024);
    } finally {
      await session.close();
    }
  });

  it('maps a folder named Screened to the screened id and skips \\Noselect parents', async () => {
    const { credential } = await newAccount();
    const admin = await otherClient(credential);
    await admin.mailboxCreate('Screened');
    await admin.mailboxCreate(['Projects', 'Ünïcode']);
    await admin.logout();
    const session = await loopbackConnector().connect(endpoint(), credential);
    try {
      const folders = await session.listFolders();
      expect(folders.find((f) => f.path === 'Screened')?.canonical).toBe('screened');
      expect(folders.find((f) => f.path === 'Projects/Ünïcode')).toMatchObject({
        name: 'Ünïcode',
        canonical: null,
      });
      expect(folders.find((f) => f.path === 'Junk')?.canonical).toBe('spam');
    } finally {
      await session.close();
    }
  });
});

describe('a 12,000-message mailbox', () => {
  let credential: MailCredential;
  let messages: GeneratedMessage[];
  let session: MailSession;
  let window: {
    cursor: Awaited<ReturnType<MailSession['changes']>>['cursor'];
    added: readonly RemoteSummary[];
  };

  beforeAll(async () => {
    ({ credential } = await newAccount());
    messages = generateMessages(12_000, { seed: 11 });
    await seedMaildir({ maildir: dovecot.maildirOf(credential.username), messages });
    session = await loopbackConnector().connect(endpoint(), credential);
  });
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- beforeAll may have failed
    await session?.close();
  });

  it('syncs a 10,000-message window in one changes() call', async () => {
    const started = performance.now();
    const result = await session.changes('INBOX', null, { windowSize: 10_000, knownRefs: [] });
    const ms = performance.now() - started;
    console.log(`initial sync of 10,000 messages: ${ms.toFixed(0)} ms`);
    window = result;
    expect(result.reset).toBe(true);
    expect(result.added).toHaveLength(10_000);
    expect(result.cursor).toMatchObject({ windowLow: 2001, uidNext: 12_001 });
    expect(result.cursor.uidValidity).toMatch(/^\d+$/);
    expect(result.cursor.highestModseq).toMatch(/^\d+$/);
    // Seeded files get UIDs in order, so UID n is message n.
    for (const m of result.added) {
      const want = messages[m.position - 1]!;
      expect(m.subject).toBe(want.subject);
      expect(m.internetMessageId).toBe(want.messageId);
      expect(m.unread).toBe(!want.flags.includes('\\Seen'));
      expect(m.hasAttachments).toBe(want.attachments.length > 0);
      expect(m.listId ?? undefined).toBe(want.listId);
    }
    expect(result.added.filter((m) => m.snippet === '')).toEqual([]);
    expect(ms).toBeLessThan(20_000);
  });

  it('pages everything below the window with fetchOlder, without gaps or duplicates', async () => {
    const positions = window.added.map((m) => m.position);
    let below = window.cursor.windowLow;
    const started = performance.now();
    for (;;) {
      const page = await session.fetchOlder('INBOX', below, 500);
      if (page.length === 0) break;
      positions.push(...page.map((m) => m.position));
      below = page.at(-1)!.position;
    }
    console.log(
      `fetchOlder of 2,000 messages in pages of 500: ${(performance.now() - started).toFixed(0)} ms`,
    );
    expect(positions).toHaveLength(12_000);
    expect(new Set(positions).size).toBe(12_000);
    expect(Math.min(...positions)).toBe(1);
  });

  it('reports exactly the flags another client changed (CONDSTORE), and an expunge', async () => {
    const admin = await otherClient(credential);
    const lock = await admin.getMailboxLock('INBOX');
    try {
      await admin.messageFlagsAdd('11000', ['\\Flagged'], { uid: true });
      await admin.messageFlagsSet('11500', ['Later'], { uid: true });
      await admin.messageFlagsAdd('5000', ['\\Seen'], { uid: true });
      await admin.messageDelete('9000', { uid: true });
    } finally {
      lock.release();
      await admin.logout();
    }
    const knownRefs = [...window.added.map((m) => m.ref)];
    const started = performance.now();
    const next = await session.changes('INBOX', window.cursor, { windowSize: 10_000, knownRefs });
    console.log(
      `incremental check over 10,000 known messages: ${(performance.now() - started).toFixed(0)} ms`,
    );
    expect(next.reset).toBe(false);
    expect(next.added).toEqual([]);
    expect(next.removed).toEqual(['9000']);
    expect(next.flags.map((f) => f.ref).sort()).toEqual(['11000', '11500', '5000']);
    expect(next.flags.find((f) => f.ref === '11500')).toMatchObject({
      unread: true,
      starred: false,
      labels: ['Later'],
    });
    expect(next.flags.find((f) => f.ref === '11000')?.starred).toBe(true);
    const remaining = knownRefs.filter((r) => r !== '9000');
    const quiet = await session.changes('INBOX', next.cursor, { windowSize: 10_000, knownRefs: remaining });
    expect(quiet).toMatchObject({ added: [], flags: [], removed: [] });
  });
});

/**
 * Last in the file on purpose: Dovecot delays every login from an address that recently failed one (its auth
 * penalty doubles from 2 s), which would slow whatever runs next. Both failures go out together, before either
 * is counted.
 */
describe('a wrong password', () => {
  it('maps to auth_failed in testLogin and to MailAuthError in connect', async () => {
    const { credential } = await newAccount();
    const wrong: MailCredential = { kind: 'password', username: credential.username, password: 'not-it' };
    const connector = loopbackConnector();
    const [failure, connected] = await Promise.allSettled([
      connector.testLogin(endpoint(), wrong),
      connector.connect(endpoint(), wrong),
    ]);
    expect(failure.status === 'fulfilled' && failure.value?.reason).toBe('auth_failed');
    const message = failure.status === 'fulfilled' ? (failure.value?.message ?? '') : '';
    expect(message).toMatch(/did not accept the username or password/);
    expect(message.length).toBeLessThan(200);
    expect(connected.status === 'rejected' && connected.reason).toBeInstanceOf(MailAuthError);
  });
});
