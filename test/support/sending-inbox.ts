import type { App } from '../../src/app.ts';
import { startDovecot, startSmtpSink, type Dovecot, type SmtpSink } from '../rig/index.ts';
import type { SmtpSinkOptions } from '../rig/smtp-sink.ts';
import { connectImapInbox, deliverTo, folderSubjects } from './imap-inbox.ts';
import { createTestApp } from './test-app.ts';
import { agentOn, expectToolOk, type toolCaller, type ToolResult } from './tool-caller.ts';
import type { WebClient } from './web-client.ts';

export interface SendingInbox {
  readonly app: App;
  readonly dovecot: Dovecot;
  readonly sink: SmtpSink;
  readonly call: ReturnType<typeof toolCaller>;
  /** The API key `call` uses. */
  readonly key: string;
  /** The person's browser on the console. */
  readonly web: WebClient;
  readonly inboxId: string;
  /** Appends raw messages to INBOX as another client would. */
  deliver(...mail: Buffer[]): Promise<void>;
  /** The subjects in one folder, read at the server. */
  subjects(path: string): Promise<string[]>;
  /** A draft to friend@example.org through create_draft: its result, with the pending send and its code. */
  draft(subject: string, text?: string): Promise<Record<string, unknown>>;
  /** send_draft of that draft with its own code, approved in chat. */
  send(draft: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

export interface SendingInboxOptions {
  /** Delivered to INBOX before the inbox is connected. */
  readonly mail?: readonly Buffer[];
  /** The server's options beside its one user (a quota, say). */
  readonly dovecot?: Omit<NonNullable<Parameters<typeof startDovecot>[0]>, 'users'>;
  /** The sink's options beside its one account (recipients it refuses, a certificate). */
  readonly sink?: Omit<SmtpSinkOptions, 'users'>;
  /** The submission server's name, when not 127.0.0.1 (answered by `app`'s DNS). */
  readonly smtpHost?: string;
  /** The inbox's address, when not `user@example.test`. */
  readonly email?: string;
  readonly app?: Parameters<typeof createTestApp>[0];
}

/**
 * A Dovecot user and an SMTP sink that takes that user's login, the service on SQLite with the inbox connected
 * through the tools (sending through the sink) and sending turned on as the person turns it on: for what a send does
 * at the sink and in the mailbox.
 */
export async function sendingInbox(
  user: string,
  password: string,
  opts: SendingInboxOptions = {},
): Promise<SendingInbox> {
  const [dovecot, sink] = await Promise.all([
    startDovecot({ users: { [user]: password }, ...opts.dovecot }),
    startSmtpSink({ users: { [user]: password }, ...opts.sink }),
  ]);
  const deliver = deliverTo(dovecot, user, password);
  if (opts.mail !== undefined && opts.mail.length > 0) await deliver(...opts.mail);
  const app = await createTestApp(opts.app);
  const { call, web, key } = await agentOn(app);
  const inboxId = await connectImapInbox(app, call, {
    dovecot,
    user,
    password,
    smtpPort: sink.port,
    ...(opts.smtpHost !== undefined && { smtpHost: opts.smtpHost }),
    ...(opts.email !== undefined && { email: opts.email }),
  });
  expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
  return {
    app,
    dovecot,
    sink,
    call,
    key,
    web,
    inboxId,
    deliver,
    subjects: (path) => folderSubjects(dovecot, user, password, path),
    draft: async (subject, text = 'Hello.') =>
      expectToolOk(await call('create_draft', { inboxId, to: 'friend@example.org', subject, text })),
    send: (d) =>
      call('send_draft', {
        pendingSendId: d['pendingSendId'],
        approvalCode: d['approvalCode'],
        humanApprovedInChat: true,
      }),
    close: async () => {
      await app.close();
      await Promise.all([sink.stop(), dovecot.stop()]);
    },
  };
}
