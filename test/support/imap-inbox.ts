import { ImapFlow } from 'imapflow';
import type { App } from '../../src/app.ts';
import { appendViaImap, buildMessage, type Dovecot } from '../rig/index.ts';
import type { toolCaller } from './tool-caller.ts';

/**
 * Adds an IMAP inbox on a rig Dovecot through the tools (add_inbox, start_imap_secret_capture), completes the
 * password capture the way the form does (the browser path has its own test), and syncs it once.
 */
export async function connectImapInbox(
  app: App,
  call: ReturnType<typeof toolCaller>,
  o: {
    dovecot: Dovecot;
    user: string;
    password: string;
    smtpPort?: number;
    /** The submission server's name, when not 127.0.0.1 (a provider's, answered by the test's DNS). */
    smtpHost?: string;
    label?: string;
    /** The inbox's address, when not `user@example.test`. */
    email?: string;
  },
): Promise<string> {
  const added = await call('add_inbox', {
    label: o.label ?? `${o.user} on Dovecot`,
    provider: 'imap',
    email: o.email ?? `${o.user}@example.test`,
    imapHost: '127.0.0.1',
    imapPort: o.dovecot.port,
    imapUser: o.user,
    ...(o.smtpPort !== undefined && { smtpHost: o.smtpHost ?? '127.0.0.1', smtpPort: o.smtpPort }),
  });
  if (added.isError) throw new Error(`add_inbox: ${JSON.stringify(added.body)}`);
  const inboxId = (added.body['inbox'] as { id: string }).id;
  const link = await call('start_imap_secret_capture', { inboxId });
  const token = new URL(link.body['url'] as string).searchParams.get('token') ?? '';
  const done = await app.services.tools.inboxes.completeSecretCapture(token, '', o.password);
  if (!done.ok) throw new Error(`capture: ${JSON.stringify(done.error)}`);
  const synced = await call('sync_inbox', { inboxId });
  if (synced.isError) throw new Error(`sync_inbox: ${JSON.stringify(synced.body)}`);
  return inboxId;
}

/** A direct IMAP client on the rig Dovecot, to compare mailbox state with what the tools claim. */
export async function imapClient(dovecot: Dovecot, user: string, password: string): Promise<ImapFlow> {
  const c = new ImapFlow({
    host: '127.0.0.1',
    port: dovecot.port,
    secure: false,
    auth: { user, pass: password },
    logger: false,
  });
  await c.connect();
  return c;
}

/**
 * The messages with this subject in the Drafts folder (special-use \\Drafts, else "Drafts"), in mailbox order: the
 * Message-ID as the envelope gives it, and the text after the header block.
 */
export async function draftsWithSubject(
  dovecot: Dovecot,
  user: string,
  password: string,
  subject: string,
): Promise<{ messageId: string; text: string }[]> {
  const c = await imapClient(dovecot, user, password);
  try {
    const drafts = (await c.list()).find((b) => b.specialUse === '\\Drafts' || b.path === 'Drafts');
    if (drafts === undefined) throw new Error('the mailbox has no Drafts folder');
    const lock = await c.getMailboxLock(drafts.path);
    try {
      const out: { messageId: string; text: string }[] = [];
      if (c.mailbox === false || c.mailbox.exists === 0) return out;
      for await (const m of c.fetch('1:*', { envelope: true, source: true }))
        if (m.envelope?.subject === subject)
          out.push({
            messageId: m.envelope.messageId ?? '',
            text: /\r\n\r\n([\s\S]*)$/.exec(m.source?.toString('utf8') ?? '')?.[1]?.trim() ?? '',
          });
      return out;
    } finally {
      lock.release();
    }
  } finally {
    await c.logout();
  }
}

/** Appends raw messages to the user's INBOX as another client (or a delivery) would. */
export function deliverTo(dovecot: Dovecot, user: string, password: string) {
  return async (...raw: Buffer[]): Promise<void> => {
    await appendViaImap({
      host: '127.0.0.1',
      port: dovecot.port,
      user,
      password,
      messages: raw.map((r) => ({ raw: r })),
    });
  };
}

/** The subjects of one folder's messages in mailbox order, read at the server with a fresh connection. */
export async function folderSubjects(
  dovecot: Dovecot,
  user: string,
  password: string,
  path: string,
): Promise<string[]> {
  const c = await imapClient(dovecot, user, password);
  try {
    const lock = await c.getMailboxLock(path);
    try {
      if (c.mailbox === false || c.mailbox.exists === 0) return [];
      const out: string[] = [];
      for await (const m of c.fetch('1:*', { envelope: true })) out.push(m.envelope?.subject ?? '');
      return out;
    } finally {
      lock.release();
    }
  } finally {
    await c.logout();
  }
}

/**
 * Every message in every folder as `folder | Message-ID | sorted flags`, sorted: equal listings mean equal mailboxes.
 * A fresh connection each time: a session that keeps a folder selected may not have been told of others' expunges.
 */
export async function mailboxState(dovecot: Dovecot, user: string, password: string): Promise<string[]> {
  const c = await imapClient(dovecot, user, password);
  try {
    return await listing(c);
  } finally {
    await c.logout();
  }
}

async function listing(c: ImapFlow): Promise<string[]> {
  const rows: string[] = [];
  for (const box of await c.list()) {
    const status = await c.status(box.path, { messages: true });
    if (status === false || status.messages === 0) continue;
    const lock = await c.getMailboxLock(box.path);
    try {
      for await (const m of c.fetch('1:*', { envelope: true, flags: true })) {
        const flags = [...(m.flags ?? new Set<string>())]
          .filter((f) => f !== '\\Recent')
          .sort()
          .join(' ');
        rows.push(`${box.path} | ${m.envelope?.messageId ?? '?'} | ${flags}`);
      }
    } finally {
      lock.release();
    }
  }
  return rows.sort();
}

/** Dovecot looks at a user's passwd-file at most once a second: wait this long after changing a password there. */
export const PASSWORD_FILE_SECOND = 1_100;

/** A plain letter to `user@example.test`, told apart by `n` (subject "Letter n", its own Message-ID and day). */
export function letterTo(user: string, n: number): Buffer {
  return buildMessage({
    from: { address: 'news@example.org' },
    to: [{ address: `${user}@example.test` }],
    subject: `Letter ${String(n)}`,
    date: new Date(Date.UTC(2026, 10, n)),
    messageId: `<letter-${String(n)}@rig.test>`,
    text: 'Hello.',
  });
}
