import { MailAuthError, MailProviderError } from '../../../core/mail/mail-ports.ts';
import type { LoginFailure, MailConnector, MailSession } from '../../../core/mail/mail-ports.ts';
import type { ImapEndpoint, MailCredential } from '../../../core/mail/mail-types.ts';
import { type Logger, silentLogger } from '../../../lib/logger.ts';
import { type AddressPolicy, isPublicHostAddress, normalizeHost } from '../../net/host-guard.ts';
import { ConnectionSemaphore } from './host-semaphore.ts';
import type { WatchConnection } from './idle-watcher.ts';
import { IdleWatcher } from './idle-watcher.ts';
import { ImapSession } from './imap-session.ts';
import { ConnectFailure, type DialPolicy, openImapClient } from './open-client.ts';

export interface ImapConnectorOptions {
  /**
   * Hosts that may be private addresses and may skip TLS (tests, an operator's LAN server). Everything else must
   * resolve to public addresses only and use TLS: implicit on port 993, STARTTLS on any other port.
   */
  readonly insecureHosts?: readonly string[];
  /** Budget for DNS, TCP, TLS and the greeting (default 15 s). */
  readonly connectTimeoutMs?: number;
  /** Concurrent connections per server and account (default 8); more wait for a free slot. */
  readonly maxConnectionsPerHost?: number;
  readonly logger?: Logger;
  /**
   * Which resolved addresses hosts outside `insecureHosts` may use (default: public only, the SSRF guard).
   * Tests replace it to reach a loopback server that must otherwise be treated as a remote one.
   */
  readonly addressPolicy?: AddressPolicy;
}

/**
 * Opens IMAP sessions (generic IMAP and iCloud). Connection slots are counted per server *and* account: providers
 * cap connections per account, and a cap per server alone would let eight long-lived IDLE watches of eight
 * different people on imap.gmail.com block everyone else.
 */
export class ImapConnector implements MailConnector {
  private readonly policy: DialPolicy;
  private readonly slots: ConnectionSemaphore;
  private readonly log: Logger;

  constructor(opts: ImapConnectorOptions = {}) {
    this.log = opts.logger ?? silentLogger;
    this.policy = {
      insecureHosts: new Set((opts.insecureHosts ?? []).map(normalizeHost)),
      addressPolicy: opts.addressPolicy ?? isPublicHostAddress,
      connectTimeoutMs: opts.connectTimeoutMs ?? 15_000,
      logger: this.log,
    };
    this.slots = new ConnectionSemaphore(opts.maxConnectionsPerHost ?? 8);
  }

  /** IMAP connections open now (sessions and IDLE watches), for metrics. */
  openConnections(): number {
    return this.slots.total();
  }

  async connect(endpoint: ImapEndpoint, credential: MailCredential): Promise<MailSession> {
    const { client, release } = await this.open(endpoint, credential, 'commands');
    return new ImapSession({
      client,
      release,
      openWatchConnection: () => this.open(endpoint, credential, 'idle'),
      logger: this.log.child({ imapHost: endpoint.host }),
    });
  }

  async watch(
    endpoint: ImapEndpoint,
    credential: MailCredential,
    path: string,
    onChange: () => void,
  ): Promise<() => Promise<void>> {
    const watcher = new IdleWatcher({
      path,
      onChange,
      open: () => this.open(endpoint, credential, 'idle'),
      log: this.log,
    });
    await watcher.start();
    return () => watcher.stop();
  }

  async testLogin(endpoint: ImapEndpoint, credential: MailCredential): Promise<LoginFailure | undefined> {
    const release = await this.slots.acquire(slotKey(endpoint, credential));
    try {
      const client = await openImapClient(endpoint, credential, this.policy);
      await client.logout().catch(() => client.close());
      return undefined;
    } catch (err) {
      if (err instanceof ConnectFailure) return err.failure;
      this.log.warn({ err, host: endpoint.host }, 'IMAP test login failed unexpectedly');
      return { reason: 'unreachable', message: `Could not connect to the mail server at ${endpoint.host}.` };
    } finally {
      release();
    }
  }

  private async open(
    endpoint: ImapEndpoint,
    credential: MailCredential,
    purpose: 'commands' | 'idle',
  ): Promise<WatchConnection> {
    const release = await this.slots.acquire(slotKey(endpoint, credential));
    try {
      return { client: await openImapClient(endpoint, credential, this.policy, purpose), release };
    } catch (err) {
      release();
      if (err instanceof ConnectFailure && err.failure.reason === 'auth_failed') {
        throw new MailAuthError(err.failure.message);
      }
      if (err instanceof ConnectFailure) throw new MailProviderError(err.failure.message);
      this.log.warn({ err, host: endpoint.host }, 'IMAP connect failed unexpectedly');
      throw new MailProviderError(`Could not connect to the mail server at ${endpoint.host}.`);
    }
  }

  /** Open connections for an account (tests and metrics). */
  activeConnections(endpoint: ImapEndpoint, credential: MailCredential): number {
    return this.slots.active(slotKey(endpoint, credential));
  }
}

function slotKey(endpoint: ImapEndpoint, credential: MailCredential): string {
  return `${normalizeHost(endpoint.host)}:${endpoint.port}\n${credential.username.toLowerCase()}`;
}
