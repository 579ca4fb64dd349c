import type { ImapFlow, ImapFlowOptions } from 'imapflow';
import { MailAuthError, MAX_RAW_BYTES, type LoginFailure } from '../../../core/mail/mail-ports.ts';
import type { ImapEndpoint, MailCredential } from '../../../core/mail/mail-types.ts';
import type { Logger } from '../../../lib/logger.ts';
import { type AddressPolicy, type HostLookup, normalizeHost, refusedAtOnce, vetHost } from '../../net/host-guard.ts';
import { classifyConnectError } from './imap-errors.ts';

/** How the connector dials: which hosts may skip TLS and the SSRF guard, and how long to wait. */
export interface DialPolicy {
  /** Normalized host names (see normalizeHost). */
  readonly insecureHosts: ReadonlySet<string>;
  readonly addressPolicy: AddressPolicy;
  readonly connectTimeoutMs: number;
  readonly logger: Logger;
  /** Tests only: DNS answers (a name with several addresses). */
  readonly lookup?: HostLookup | undefined;
}

/** A connect or login failure, already classified for the person. */
export class ConnectFailure extends Error {
  override readonly name = 'ConnectFailure';
  readonly failure: LoginFailure;
  constructor(failure: LoginFailure, options?: ErrorOptions) {
    super(failure.message, options);
    this.failure = failure;
  }
}

/** IDLE is re-issued well before the 29 minutes of RFC 2177 §3; NAT boxes often forget quiet flows sooner. */
export const IDLE_RESTART_MS = 10 * 60_000;

/** The largest literal a server may send (see the options below): MAX_RAW_BYTES and room to spare. */
export const MAX_SERVER_LITERAL_BYTES = MAX_RAW_BYTES + 1024 * 1024;
/** The longest line: `* SEARCH` of ten million UIDs, or a listing of thousands of folders, fits. */
export const MAX_SERVER_LINE_BYTES = 128 * 1024 * 1024;

/**
 * Opens one logged-in imapflow connection.
 *
 * TLS: port 993 is implicit TLS; any other port must upgrade with STARTTLS before the password is sent (imapflow
 * fails with `tlsFailed` when the server does not offer it) — unless the host is in `insecureHosts`, where
 * STARTTLS is used when offered and plaintext is accepted otherwise (tests, an operator's LAN server).
 */
export async function openImapClient(
  endpoint: ImapEndpoint,
  credential: MailCredential,
  policy: DialPolicy,
  purpose: 'commands' | 'idle' = 'commands',
): Promise<ImapFlow> {
  const insecure = policy.insecureHosts.has(normalizeHost(endpoint.host));
  if (credential.kind === 'google' || credential.kind === 'microsoft')
    throw new MailAuthError('a provider sign-in does not log in over IMAP here');
  const oauth = credential.kind === 'oauth';
  let client: ImapFlow | undefined;
  try {
    const vetted = await withTimeout(
      vetHost(endpoint.host, insecure ? () => true : policy.addressPolicy, policy.lookup),
      policy.connectTimeoutMs,
    );
    const implicitTls = endpoint.port === 993;
    const options = (address: string): ImapFlowOptions => ({
      host: address,
      port: endpoint.port,
      secure: implicitTls,
      ...(vetted.servername !== undefined && { servername: vetted.servername }),
      ...(!implicitTls && !insecure && { doSTARTTLS: true }),
      auth:
        credential.kind === 'password'
          ? { user: credential.username, pass: credential.password }
          : { user: credential.username, accessToken: credential.accessToken },
      logger: false,
      // The IDLE connection only listens. With QRESYNC, expunges arrive as VANISHED, which imapflow 2.1.2 does not
      // count off its EXISTS total, so the next new message (the same total again) raised no 'exists' event.
      qresync: purpose !== 'idle',
      // Nor does it need COMPRESS=DEFLATE: the zlib streams cost ~170 KB of native memory per connection (measured
      // against Dovecot with imap_zlib) to save bytes on a line that carries a few untagged responses an hour; a
      // thousand watched inboxes would hold ~170 MB for nothing. Command connections keep it (they fetch bodies).
      disableCompression: purpose === 'idle',
      disableAutoIdle: true,
      // What a server may send in one piece, bounded by what this service asks for (decision 0100): a literal at most
      // a message read whole for the unsubscribe check (MAX_RAW_BYTES) — every other fetch asks for 2 MB or less —
      // and a line or an answer big enough for a SEARCH of millions of UIDs. imapflow's defaults (1 GB, 2 GB) let a
      // server — any an account holder names — make the process hold gigabytes.
      maxLiteralSize: MAX_SERVER_LITERAL_BYTES,
      maxLineLength: MAX_SERVER_LINE_BYTES,
      maxResponseSize: MAX_SERVER_LINE_BYTES + MAX_SERVER_LITERAL_BYTES,
      connectionTimeout: policy.connectTimeoutMs,
      greetingTimeout: policy.connectTimeoutMs,
      clientInfo: { name: 'Inbox Triage' },
      // The IDLE connection sits quiet between restarts; a shorter socket timeout would NOOP in between.
      ...(purpose === 'idle' && { maxIdleTime: IDLE_RESTART_MS, socketTimeout: IDLE_RESTART_MS + 60_000 }),
    });
    // Loaded on first use (decision 0027): a service with only the demo inbox never pays for it.
    const { ImapFlow } = await import('imapflow');
    // Each vetted address in the resolver's order while the last one refused at once (an IPv6 address on a host
    // without an IPv6 route, one server of several down); a timeout ends the attempt, which has spent its time.
    for (const [i, address] of vetted.addresses.entries()) {
      const c = new ImapFlow(options(address));
      client = c;
      // Without a listener an 'error' event would crash the process; failures also reject the awaited call.
      c.on('error', (err: Error) => policy.logger.debug({ err, host: endpoint.host }, 'IMAP connection error'));
      try {
        await c.connect();
        return c;
      } catch (err) {
        if (i === vetted.addresses.length - 1 || !refusedAtOnce(err)) throw err;
        c.close();
        policy.logger.debug({ host: endpoint.host, address, err }, 'IMAP address refused; trying the next');
      }
    }
    throw new Error('no address to connect to');
  } catch (err) {
    client?.close();
    const failure = classifyConnectError(err, endpoint, oauth);
    policy.logger.info(
      { host: endpoint.host, port: endpoint.port, reason: failure.reason },
      'IMAP login failed',
    );
    throw new ConnectFailure(failure, { cause: err });
  }
}

/** The system resolver has no deadline of its own that we control; DNS counts against the connect budget. */
async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error('DNS lookup timed out'), { code: 'CONNECT_TIMEOUT' })),
      ms,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
