import type SMTPConnection from 'nodemailer/lib/smtp-connection';
import { LazyModule } from '../../lazy-module.ts';

const smtpModule = new LazyModule<typeof SMTPConnection>('nodemailer/lib/smtp-connection');
import type { CredentialVault } from '../../../core/inboxes/credential-vault.ts';
import type { Inbox } from '../../../core/inboxes/inbox.ts';
import { submissionUser } from '../../../core/inboxes/provider-detection.ts';
import {
  SubmitRefusedError,
  SubmitUncertainError,
  type MailServer,
  type MailSubmitter,
  type Submission,
  type SubmissionLoginTester,
  type SubmitReceipt,
} from '../../../core/sending/mail-submitter.ts';
import type { LoginFailure } from '../../../core/mail/mail-ports.ts';
import type { MailCredential } from '../../../core/mail/mail-types.ts';
import { type Logger, silentLogger } from '../../../lib/logger.ts';
import { certificateWords } from '../../net/certificate-words.ts';
import { printableReason } from '../server-words.ts';
import {
  type AddressPolicy,
  type HostLookup,
  HostNotFoundError,
  HostRefusedError,
  isPublicHostAddress,
  normalizeHost,
  refusedAtOnce,
  vetHost,
} from '../../net/host-guard.ts';

export interface SmtpSubmitterOptions {
  readonly vault: CredentialVault;
  /** The same operator allowlist as IMAP: hosts that may be private and may skip TLS. */
  readonly insecureHosts?: readonly string[];
  readonly addressPolicy?: AddressPolicy;
  /** Tests: DNS answers and a CA, for a local sink under a provider's name. */
  readonly lookup?: HostLookup;
  readonly ca?: string;
  readonly timeoutMs?: number;
  /** How long a test login may take (the password page waits for it); default 15 s. */
  readonly testTimeoutMs?: number;
  readonly logger?: Logger;
}

type SmtpError = Error & {
  code?: string | undefined;
  /** The socket's own code, where nodemailer's `code` says only ESOCKET (a certificate's failure, say). */
  originalCode?: string | undefined;
  responseCode?: number | undefined;
  /** The server's reply line, as it gave it. */
  response?: string | undefined;
};

/**
 * SMTP submission for IMAP and iCloud inboxes, with the stored credential: implicit TLS on 465, STARTTLS required on
 * any other port (RFC 8314), unless the host is on the operator's insecure list. The host passes the same SSRF guard
 * as IMAP and the connection goes to the vetted address.
 *
 * Where a failure happened decides what it means: anything before the message is handed over, and any negative
 * reply from the server, is a refusal (nothing went out); a connection that breaks after the data started is
 * uncertain — the server may have accepted it — and the caller must not retry on its own.
 */
export class SmtpSubmitter implements MailSubmitter, SubmissionLoginTester {
  private readonly o: SmtpSubmitterOptions;
  private readonly insecure: Set<string>;
  private readonly log: Logger;
  constructor(o: SmtpSubmitterOptions) {
    this.o = o;
    this.insecure = new Set((o.insecureHosts ?? []).map(normalizeHost));
    this.log = o.logger ?? silentLogger;
  }

  canSend(inbox: Inbox): boolean {
    return (inbox.provider === 'imap' || inbox.provider === 'icloud') && inbox.smtpHost !== null;
  }

  async submit(inbox: Inbox, s: Submission): Promise<SubmitReceipt> {
    if (inbox.smtpHost === null) throw new SubmitRefusedError('this inbox has no SMTP server');
    const credential = await this.o.vault.get(inbox.id);
    if (credential === undefined)
      throw new SubmitRefusedError('no readable stored credential', { authFailed: true });
    // OAuth inboxes (Gmail, Microsoft) send through their provider APIs, not SMTP.
    if (credential.kind !== 'password') throw new SubmitRefusedError('this inbox cannot send over SMTP');
    const host = normalizeHost(inbox.smtpHost);
    let exchange: Exchange;
    try {
      exchange = await this.open(host, inbox.smtpPort ?? 587);
    } catch (e) {
      if (e instanceof HostRefusedError || e instanceof HostNotFoundError)
        throw new SubmitRefusedError(e.message, { serverUnusable: true });
      throw e;
    }
    let refusedRecipients: string[] = [];
    try {
      try {
        await exchange.logIn({
          username: submissionUser(inbox.provider, credential.username),
          password: credential.password,
        });
      } catch (e) {
        // As a test login says it: a refused password, the server's passing failure, or the server itself unusable.
        const failure = loginFailure(e as SmtpError, host);
        throw new SubmitRefusedError(failure.message, {
          authFailed: failure.reason === 'auth_failed',
          serverUnusable: failure.reason !== 'auth_failed' && failure.reason !== 'unavailable',
        });
      }
      // An address beyond ASCII goes only to a server that takes SMTPUTF8 (RFC 6531 §3.2: a client must not send it to
      // one that does not); nodemailer asks for it where offered and sends it regardless where not (decision 0151).
      const beyondAscii = (a: string) => /[^\x00-\x7f]/.test(a);
      const recipient = s.recipients.find(beyondAscii);
      if ((recipient !== undefined || beyondAscii(s.envelopeFrom)) && !exchange.offers('SMTPUTF8'))
        throw new SubmitRefusedError(
          'the mail server does not take addresses with letters beyond ASCII before the @ (SMTPUTF8), ' +
            (recipient === undefined
              ? `and this inbox's own address, “${s.envelopeFrom.slice(0, 100)}”, has them`
              : `such as “${recipient.slice(0, 100)}”; write to another address of theirs, or send from an inbox whose mail server takes them`),
        );
      refusedRecipients = await exchange.send(s).catch((e: unknown) => {
        const err = e as SmtpError;
        // A reply from the server (RCPT refused, DATA refused) means it did not take the message; a connection that
        // broke once the data started may have delivered it.
        throw typeof err.responseCode === 'number' || err.code === 'EENVELOPE'
          ? new SubmitRefusedError(describe(err))
          : new SubmitUncertainError(certificate(err, host) ?? describe(err));
      });
      if (refusedRecipients.length > 0)
        this.log.warn({ inboxId: inbox.id, rejected: refusedRecipients.length }, 'some recipients refused');
    } finally {
      exchange.quit();
    }
    return { filedByProvider: false, copyFiledByServer: FILES_ITS_OWN_COPY.has(host), refusedRecipients };
  }

  /**
   * Logs in to a submission server and out again, sending nothing: where an inbox's mail would go is checked when
   * the person gives its password (decision 0095), not at the first send they approved.
   */
  async testLogin(server: MailServer, credential: MailCredential): Promise<LoginFailure | undefined> {
    if (credential.kind !== 'password') return undefined;
    const host = normalizeHost(server.host);
    let exchange: Exchange;
    try {
      exchange = await this.open(host, server.port, this.o.testTimeoutMs ?? 15_000);
    } catch (e) {
      if (e instanceof HostRefusedError) return { reason: 'refused_host', message: e.message };
      if (e instanceof HostNotFoundError) return { reason: 'unreachable', message: e.message };
      throw e;
    }
    try {
      await exchange.logIn(credential);
      return undefined;
    } catch (e) {
      return loginFailure(e as SmtpError, host);
    } finally {
      exchange.quit();
    }
  }

  /** A connection to the host on its vetted addresses, not yet opened: the same SSRF guard and TLS rules as IMAP. */
  private async open(host: string, port: number, timeout = this.o.timeoutMs ?? 30_000): Promise<Exchange> {
    const insecure = this.insecure.has(host);
    let addresses: readonly string[] = [host];
    let servername: string | undefined;
    if (!insecure)
      ({ addresses, servername } = await vetHost(
        host,
        this.o.addressPolicy ?? isPublicHostAddress,
        this.o.lookup,
      ));
    const Connection = smtpModule.load();
    return new Exchange(
      addresses,
      (address) =>
        new Connection({
          host: address,
          port,
          secure: port === 465,
          requireTLS: !insecure && port !== 465,
          ...(servername !== undefined && { servername }),
          tls: {
            minVersion: 'TLSv1.2',
            ...(servername !== undefined && { servername }),
            ...(this.o.ca !== undefined && { ca: this.o.ca }),
          },
          connectionTimeout: timeout,
          greetingTimeout: timeout,
          socketTimeout: timeout * 2,
          allowInternalNetworkInterfaces: insecure,
          logger: false,
        }),
    );
  }
}

/**
 * One SMTP connection, a step at a time. nodemailer reports a failure while connecting or logging in only as an
 * 'error' (or 'end') event, never to the callback; during a send it also calls the send callback. Whichever comes
 * first settles the step in progress, with the error as nodemailer gave it (none: the server closed the connection).
 */
class Exchange {
  private readonly addresses: readonly string[];
  private readonly connection: (address: string) => SMTPConnection;
  private conn: SMTPConnection | undefined;
  private reject: ((e: SmtpError) => void) | undefined;
  constructor(addresses: readonly string[], connection: (address: string) => SMTPConnection) {
    this.addresses = addresses;
    this.connection = connection;
  }

  /**
   * Connects — to each vetted address in turn while the last one refused at once (as IMAP does), never after a
   * server has answered — then logs in.
   */
  async logIn(credential: { readonly username: string; readonly password: string }): Promise<void> {
    for (const [i, address] of this.addresses.entries()) {
      const conn = this.connection(address);
      this.conn = conn;
      const broken = (e: SmtpError) => {
        if (this.conn === conn) this.reject?.(e);
      };
      conn.on('error', broken);
      conn.on('end', () => {
        broken(Object.assign(new Error('the mail server closed the connection'), { code: 'ECLOSED' }));
      });
      try {
        await this.step<unknown>((done) => {
          conn.connect(done);
        });
        break;
      } catch (e) {
        if (i === this.addresses.length - 1 || !refusedAtOnce(e)) throw e;
        conn.close();
      }
    }
    await this.step<unknown>((done) => {
      this.opened().login({ user: credential.username, pass: credential.password }, done);
    });
  }

  /** The recipients the server refused while it took the message for the others. */
  async send(s: Submission): Promise<string[]> {
    const info = await this.step<{ rejected: unknown[] }>((done) => {
      this.opened().send({ from: s.envelopeFrom, to: [...s.recipients] }, Buffer.from(s.raw), done);
    });
    return info.rejected.map(String);
  }

  /**
   * Whether the server's EHLO offered this extension. nodemailer keeps the list (`_supportedExtensions`, filled from
   * the EHLO reply) without a public reader; a version without it reads as offering nothing, which refuses, never
   * sends wrongly.
   */
  offers(extension: string): boolean {
    const listed = (this.conn as unknown as { _supportedExtensions?: unknown } | undefined)?._supportedExtensions;
    return Array.isArray(listed) && listed.includes(extension);
  }

  quit(): void {
    this.reject = undefined;
    this.conn?.quit();
  }

  private opened(): SMTPConnection {
    if (this.conn === undefined) throw new Error('not connected');
    return this.conn;
  }

  private step<T>(start: (done: (e: Error | null | undefined, value?: T) => void) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.reject = reject;
      start((e, value) => {
        if (e) reject(e);
        else resolve(value as T);
      });
    });
  }
}

/**
 * A failed login, as the password page says it (the same reasons as IMAP's): anything but the login itself — the
 * server's address, its TLS, its certificate, its greeting — is the server being unusable or out of reach.
 */
function loginFailure(e: SmtpError, host: string): LoginFailure {
  const words = certificate(e, host);
  if (words !== undefined) return { reason: 'certificate', message: words };
  const message = describe(e);
  if ((e.code === 'EAUTH' || e.code === 'ENOAUTH') && forNow(e)) return { reason: 'unavailable', message };
  if (e.code === 'EAUTH' || e.code === 'ENOAUTH') return { reason: 'auth_failed', message };
  if (e.code === 'ETLS' || e.code === 'EREQUIRETLS') return { reason: 'tls_required', message };
  return { reason: 'unreachable', message };
}

/**
 * Submission servers that file a copy of every message they take in the sender's Sent folder: Gmail's (Google
 * Workspace's too). Another copy from us would be a duplicate (decision 0082). Not smtp-relay.gmail.com, a relay.
 */
const FILES_ITS_OWN_COPY: ReadonlySet<string> = new Set(['smtp.gmail.com', 'smtp.googlemail.com']);

/**
 * A 4xx reply is a failure of the moment (RFC 5321 §4.2.1): at AUTH, `454 4.7.0 Temporary authentication failure`
 * (RFC 4954) while the server's password database is away, or Gmail's "Too many login attempts, please try again
 * later". Taken for a refused password, it sent the whole inbox to "needs reconnecting" (decision 0085).
 */
function forNow(e: SmtpError): boolean {
  return typeof e.responseCode === 'number' && e.responseCode >= 400 && e.responseCode < 500;
}

/** A certificate this machine does not trust, said with what the operator can do (decision 0081). */
function certificate(e: SmtpError, host: string): string | undefined {
  const words = certificateWords(e.originalCode ?? e.code, host);
  // The refusal reads "Not sent: <reason>. Nothing went out…": no capital, no full stop of its own.
  return words === undefined ? undefined : words.charAt(0).toLowerCase() + words.slice(1).replace(/\.$/, '');
}

/** A short reason without provider internals or credentials: the SMTP reply code, or the kind of failure. */
function describe(e: SmtpError): string {
  if ((e.code === 'EAUTH' || e.code === 'ENOAUTH') && forNow(e))
    return `the mail server could not check the login just now (it answered ${String(e.responseCode)}, a failure on its side; this says nothing about the password)`;
  if (e.code === 'EAUTH' || e.code === 'ENOAUTH') return 'the mail server refused the login';
  if (e.code === 'ETLS' || e.code === 'EREQUIRETLS') return 'the mail server does not offer TLS';
  if (e.code === 'EDNS') return 'the mail server name does not resolve';
  if (e.code === 'ETIMEDOUT') return 'the mail server did not answer in time';
  if (e.code === 'ECLOSED') return 'the mail server closed the connection';
  if (e.code === 'EENVELOPE') return 'the mail server refused the recipients';
  if (typeof e.responseCode === 'number') {
    // "550 5.7.1 Sender address rejected: not owned by user" → its reason, without the reply and status codes.
    const said = printableReason((e.response ?? '').replace(/^\d{3}[ -]?(\d\.\d{1,3}\.\d{1,3}\s+)?/, ''));
    return `the mail server answered ${String(e.responseCode)}${said === undefined ? '' : ` (${said})`}`;
  }
  return 'the connection to the mail server failed';
}
