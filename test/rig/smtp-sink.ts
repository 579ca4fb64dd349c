import { EventEmitter } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One accepted message, exactly as the client sent it. */
interface ReceivedMail {
  /** envelope MAIL FROM ('' for a null sender); the server shows an internationalised domain in Unicode */
  from: string;
  /** MAIL FROM asked for SMTPUTF8: an address in the envelope was not ASCII (a server without it would refuse) */
  smtpUtf8: boolean;
  /** envelope RCPT TO, in order */
  to: string[];
  raw: Buffer;
  /** the authenticated user name, when the client logged in */
  auth?: string;
}

export interface SmtpSink {
  host: '127.0.0.1';
  port: number;
  received: ReceivedMail[];
  /** Resolves once at least `count` messages have arrived; rejects after timeoutMs. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /**
   * With `holdReplies`: answers every DATA held so far with 250 and stops holding. A client that went away in the
   * meantime gets nothing (its message stays recorded).
   */
  release(): void;
  /** Cuts every open client connection without a reply (held replies are dropped, not sent). */
  disconnect(): void;
  /**
   * While on, AUTH is answered `454 4.7.0 Temporary authentication failure` (RFC 4954), as a submission server
   * whose password database is away answers, whatever the password.
   */
  authUnavailable(on: boolean): void;
  stop(): Promise<void>;
}

export interface SmtpSinkOptions {
  /** Accounts for AUTH; with them AUTH is mandatory and checked, without anything goes. */
  users?: Record<string, string>;
  /** Listen on this port (default: any free one) — to bring a sink back where a stopped one was. */
  port?: number;
  /**
   * Record each message as soon as its data has arrived, but hold the reply to DATA until release(): the client
   * is left waiting after the server already has the message (the window in which a sender can die mid-send).
   */
  holdReplies?: boolean;
  /** Recipients refused at RCPT TO with 550, as a submission server refuses an address it knows to be wrong. */
  refuseRecipients?: readonly string[];
  /** Offer STARTTLS with this certificate and key (PEM); default: plaintext only. */
  tls?: { cert: string; key: string };
  /**
   * Refuse every message at the end of DATA with this reply, as a server refuses by policy (a sender address the
   * login may not use, mail it takes for spam): nothing is recorded.
   */
  refuseData?: { code: number; text: string };
  /** Offer no SMTPUTF8 (RFC 6531) in the EHLO reply, as many servers do not. */
  noSmtpUtf8?: boolean;
}

const MAX_SIZE = 25 * 1024 * 1024; // like common submission servers

/**
 * An in-process SMTP submission server on 127.0.0.1 that records every message.
 * Plaintext only unless given a certificate: STARTTLS is disabled so clients never try to upgrade. With
 * `users`, AUTH (PLAIN/LOGIN) is mandatory and checked; without, anything goes.
 */
export async function startSmtpSink(opts: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const users = opts.users;
  const received: ReceivedMail[] = [];
  const events = new EventEmitter();
  let holding = opts.holdReplies === true;
  let authDown = false;
  const held: (() => void)[] = [];
  const release = (): void => {
    holding = false;
    for (const reply of held.splice(0)) {
      try {
        reply();
      } catch {
        // the client is gone; nothing to answer
      }
    }
  };
  const server = new SMTPServer({
    logger: false,
    ...(opts.tls === undefined
      ? { disabledCommands: ['STARTTLS'] }
      : { key: opts.tls.key, cert: opts.tls.cert }),
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: !users,
    allowInsecureAuth: true, // AUTH over plaintext; it is loopback-only
    size: MAX_SIZE,
    closeTimeout: 1000, // stop() should not wait 30 s for an idle client
    hideSMTPUTF8: opts.noSmtpUtf8 === true,
    onAuth(auth, _session, callback) {
      if (authDown) {
        callback(Object.assign(new Error('4.7.0 Temporary authentication failure'), { responseCode: 454 }));
        return;
      }
      const user = auth.username ?? '';
      if (!users || (Object.hasOwn(users, user) && users[user] === auth.password)) callback(null, { user });
      else callback(new Error('Invalid username or password')); // smtp-server answers 535
    },
    onRcptTo(address, _session, callback) {
      if (opts.refuseRecipients?.includes(address.address.toLowerCase()) === true)
        callback(Object.assign(new Error('5.1.1 No such user here'), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.once('error', (err: Error) => callback(err));
      stream.once('end', () => {
        if (opts.refuseData !== undefined) {
          callback(Object.assign(new Error(opts.refuseData.text), { responseCode: opts.refuseData.code }));
          return;
        }
        if (stream.sizeExceeded) {
          callback(Object.assign(new Error(`Message exceeds ${MAX_SIZE} bytes`), { responseCode: 552 }));
          return;
        }
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          smtpUtf8:
            session.envelope.mailFrom !== false && session.envelope.mailFrom.args !== false
              ? session.envelope.mailFrom.args['SMTPUTF8'] !== undefined
              : false,
          raw: Buffer.concat(chunks),
          ...(session.user ? { auth: session.user } : {}),
        };
        received.push(mail);
        events.emit('received');
        if (holding) held.push(() => callback(null, 'queued'));
        else callback(null, 'queued');
      });
    },
  });

  // smtp-server emits 'error' for client-side socket errors (a test dropping a
  // connection mid-session); unhandled, that event would crash the worker.
  server.on('error', () => undefined);
  const sockets = new Set<Socket>();
  server.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;
  let stopped: Promise<void> | undefined;

  return {
    host: '127.0.0.1',
    port,
    received,
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (received.length < count) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `SMTP sink: expected ${count} message(s) within ${timeoutMs} ms, got ${received.length}`,
            ),
          );
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          events.off('received', check);
        };
        events.on('received', check);
        check();
      });
    },
    release,
    disconnect() {
      held.length = 0;
      for (const socket of sockets) socket.destroy();
    },
    authUnavailable(on) {
      authDown = on;
    },
    stop() {
      release();
      stopped ??= new Promise<void>((resolve) => server.close(() => resolve()));
      return stopped;
    },
  };
}
