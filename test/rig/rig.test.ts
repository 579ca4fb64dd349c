import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { ImapFlow } from 'imapflow';
import type { MessageStructureObject } from 'imapflow';
import nodemailer from 'nodemailer';
import pg from 'pg';
import PostalMime from 'postal-mime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendViaImap,
  artifactPath,
  freshPgDatabase,
  generateMessages,
  launchBrowser,
  MESSAGE_KINDS,
  seedMaildir,
  startDovecot,
  startSmtpSink,
} from './index.ts';
import type { Dovecot, GeneratedMessage, SmtpSink } from './index.ts';

async function streamToBuffer(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function imapClient(dovecot: Dovecot, user: string, pass: string): ImapFlow {
  const client = new ImapFlow({
    host: dovecot.host,
    port: dovecot.port,
    secure: false,
    doSTARTTLS: false,
    logger: false,
    auth: { user, pass },
  });
  client.on('error', () => undefined); // failures surface through the awaited calls
  return client;
}

describe('message factory', () => {
  it('is deterministic and round-trips through a MIME parser', async () => {
    const a = generateMessages(200, { seed: 7 });
    const b = generateMessages(200, { seed: 7 });
    expect(a.map((m) => m.raw.toString('base64'))).toEqual(b.map((m) => m.raw.toString('base64')));
    expect(a.slice(0, MESSAGE_KINDS.length).map((m) => m.kind)).toEqual(MESSAGE_KINDS);
    for (const m of a) {
      const parsed = await PostalMime.parse(m.raw, { attachmentEncoding: 'arraybuffer' });
      expect(parsed.subject).toBe(m.subject);
      expect(parsed.from?.address).toBe(m.from);
      expect(parsed.from?.name ?? '').toBe(m.fromName);
      expect(parsed.attachments.map((x) => Buffer.from(x.content as ArrayBuffer))).toEqual(
        m.attachments.map((x) => x.content),
      );
    }
  });
});

describe('PostgreSQL cluster', () => {
  let url: string;
  beforeAll(async () => {
    url = await freshPgDatabase();
  });

  it('gives the test file a database the app role owns', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
      await client.query('INSERT INTO notes (body) VALUES ($1), ($2)', ['héllo', '日本語']);
      const { rows } = await client.query<{ body: string }>('SELECT body FROM notes ORDER BY id');
      expect(rows.map((r) => r.body)).toEqual(['héllo', '日本語']);
      const db = await client.query<{ db: string }>('SELECT current_database() AS db');
      expect(`/${db.rows[0]?.db ?? ''}`).toBe(new URL(url).pathname);
    } finally {
      await client.end();
    }
  });

  it('isolates databases from each other', async () => {
    const other = new pg.Client({ connectionString: await freshPgDatabase() });
    await other.connect();
    try {
      const { rows } = await other.query("SELECT to_regclass('notes') AS t");
      expect(rows[0]).toEqual({ t: null });
    } finally {
      await other.end();
    }
  });

  it('rejects a wrong password (scram over TCP)', async () => {
    const bad = new URL(url);
    bad.password = 'wrong-password';
    const client = new pg.Client({ connectionString: bad.toString() });
    await expect(client.connect()).rejects.toMatchObject({ code: '28P01' });
  });
});

describe('Dovecot IMAP', () => {
  let dovecot: Dovecot;
  let client: ImapFlow;
  let messages: GeneratedMessage[];

  beforeAll(async () => {
    dovecot = await startDovecot();
    await dovecot.addUser('alice', 'alice-pw');
    messages = generateMessages(10_000, { seed: 2024 });
    await seedMaildir({ maildir: dovecot.maildirOf('alice'), messages });
    await seedMaildir({
      maildir: dovecot.maildirOf('alice'),
      folder: 'Receipts',
      messages: generateMessages(3, { seed: 5 }),
    });
    client = imapClient(dovecot, 'alice', 'alice-pw');
    await client.connect();
  });

  afterAll(async () => {
    // beforeAll may have failed half-way, leaving either unset.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    await client?.logout();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    await dovecot?.stop();
  });

  it('advertises the extensions the sync engine relies on', () => {
    for (const cap of ['CONDSTORE', 'QRESYNC', 'MOVE', 'UIDPLUS', 'SPECIAL-USE', 'IDLE']) {
      expect(client.capabilities.has(cap), cap).toBe(true);
    }
  });

  it('serves the seeded mailboxes', async () => {
    const count = async (path: string): Promise<number | undefined> => {
      const status = await client.status(path, { messages: true });
      return status ? status.messages : undefined;
    };
    expect(await count('INBOX')).toBe(10_000);
    expect(await count('Receipts')).toBe(3);
    const specialUse = (await client.list()).map((b) => b.specialUse).filter(Boolean);
    expect(specialUse).toEqual(
      expect.arrayContaining(['\\Drafts', '\\Sent', '\\Trash', '\\Junk', '\\Archive']),
    );
  });

  it('returns decoded envelopes, flags and dates matching the factory (UID n = message n)', async () => {
    const pick = (pred: (m: GeneratedMessage) => boolean): number => messages.findIndex(pred) + 1;
    const uids = new Set([
      pick((m) => m.subject.includes('é')),
      pick((m) => m.subject.includes('日本語')),
      pick((m) => m.kind === 'legacy-iso2022jp'),
      pick((m) => m.kind === 'legacy-cp1252'),
      pick((m) => /[^\x00-\x7f]/.test(m.fromName)),
      5000,
      10_000,
    ]);
    expect(uids.has(0)).toBe(false); // findIndex found every kind of message
    expect(uids.size).toBeGreaterThanOrEqual(5);
    const lock = await client.getMailboxLock('INBOX');
    try {
      const fetched = await client.fetchAll(
        [...uids].join(','),
        { uid: true, envelope: true, flags: true, internalDate: true },
        { uid: true },
      );
      expect(fetched).toHaveLength(uids.size);
      for (const msg of fetched) {
        const want = messages[msg.uid - 1];
        expect(msg.envelope?.subject).toBe(want?.subject);
        expect(msg.envelope?.messageId).toBe(want?.messageId);
        expect(msg.envelope?.from?.[0]?.address).toBe(want?.from);
        expect(msg.envelope?.from?.[0]?.name ?? '').toBe(want?.fromName);
        expect(new Date(msg.internalDate ?? 0).getTime()).toBe(want?.internalDate.getTime());
        expect([...(msg.flags ?? [])].filter((f) => f !== '\\Recent').sort()).toEqual(
          [...(want?.flags ?? [])].sort(),
        );
      }
    } finally {
      lock.release();
    }
  });

  it('downloads an attachment byte for byte', async () => {
    const index = messages.findIndex((m) => m.attachments[0]?.contentType === 'application/pdf');
    const want = messages[index]?.attachments[0];
    if (!want) throw new Error('factory produced no PDF attachment');
    const lock = await client.getMailboxLock('INBOX');
    try {
      const uid = String(index + 1);
      const msg = await client.fetchOne(uid, { bodyStructure: true }, { uid: true });
      const part = msg
        ? msg.bodyStructure?.childNodes?.find((n: MessageStructureObject) => n.disposition === 'attachment')
            ?.part
        : undefined;
      expect(part).toBeDefined();
      const download = await client.download(uid, part, { uid: true });
      if (!download.content) throw new Error(`part ${String(part)} of UID ${uid} not found`);
      expect(download.meta.filename).toBe(want.filename); // RFC 2231 encoded, non-ASCII
      expect((await streamToBuffer(download.content)).equals(want.content)).toBe(true);
    } finally {
      lock.release();
    }
  });

  it('appends live with server-assigned UIDs after the seeded ones', async () => {
    const extra = generateMessages(2, { seed: 99 });
    const appended = await appendViaImap({
      host: dovecot.host,
      port: dovecot.port,
      user: 'alice',
      password: 'alice-pw',
      messages: extra,
    });
    expect(appended.map((a) => a.uid)).toEqual([10_001, 10_002]);
  });

  it('rejects a wrong password', async () => {
    const bad = imapClient(dovecot, 'alice', 'not-the-password');
    await expect(bad.connect()).rejects.toMatchObject({ authenticationFailed: true });
  });
});

describe('SMTP sink', () => {
  const sinks: SmtpSink[] = [];
  afterAll(async () => {
    await Promise.all(sinks.map((s) => s.stop()));
  });

  it('records a plaintext submission with a non-ASCII subject', async () => {
    const sink = await startSmtpSink();
    sinks.push(sink);
    const transport = nodemailer.createTransport({
      host: sink.host,
      port: sink.port,
      secure: false,
      ignoreTLS: true,
    });
    const subject = 'Grüße aus Köln — 日本語 ✓';
    await transport.sendMail({
      from: 'alice@example.test',
      to: 'bob@example.com',
      subject,
      text: 'Bonjour, ça va?',
    });
    await sink.waitFor(1);
    expect(sink.received[0]?.to).toEqual(['bob@example.com']);
    const parsed = await PostalMime.parse(sink.received[0]?.raw ?? Buffer.alloc(0));
    expect(parsed.subject).toBe(subject);
    expect(parsed.text?.trim()).toBe('Bonjour, ça va?');
  });

  it('requires and checks AUTH when users are configured', async () => {
    const sink = await startSmtpSink({ users: { alice: 's3cret' } });
    sinks.push(sink);
    const send = (auth?: { user: string; pass: string }): Promise<unknown> =>
      nodemailer
        .createTransport({
          host: sink.host,
          port: sink.port,
          secure: false,
          ignoreTLS: true,
          ...(auth ? { auth } : {}),
        })
        .sendMail({ from: 'alice@example.test', to: 'bob@example.com', subject: 'hi', text: 'x' });
    await expect(send({ user: 'alice', pass: 'wrong' })).rejects.toMatchObject({ responseCode: 535 });
    await expect(send()).rejects.toMatchObject({ responseCode: 530 });
    await send({ user: 'alice', pass: 's3cret' });
    await sink.waitFor(1);
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0]?.auth).toBe('alice');
  });
});

describe('browser', () => {
  it('launches Debian chromium and writes a screenshot artifact', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.setContent('<h1 id="t">Inbox Triage — rig ✓</h1>');
      expect(await page.textContent('#t')).toBe('Inbox Triage — rig ✓');
      const path = artifactPath('rig-smoke.png');
      await page.screenshot({ path });
      expect(readFileSync(path).subarray(1, 4).toString('latin1')).toBe('PNG');
    } finally {
      await browser.close();
    }
  });
});
