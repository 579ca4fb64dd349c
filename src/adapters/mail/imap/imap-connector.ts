import { MailAuthError, MailProviderError } from '../../../core/mail/mail-ports.ts';
import type { LoginFailure, MailConnector, MailSession } from '../../../core/mail/mail-ports.ts';
import type { ImapEndpoint, MailCredential } from '../../../core/mail/mail-types.ts';
import { type Logger, silentLogger } from '../../../lib/logger.ts';
import { type AddressPolicy, type HostLookup, isPublicHostAddress, normalizeHost } from '../../net/host-guard.ts';
import { sha256Hex } from '../../../lib/secret-token.ts';
import { ConnectionPool } from './connection-pool.ts';
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
  /** How long a logged-in connection is kept for the account's next session (connection-pool.ts); 0: never. */
  readonly pooledIdleMs?: number;
  /** How long one login is reused at most (connection-pool.ts `MAX_LOGIN_AGE_MS`). */
  readonly maxLoginAgeMs?: number;
  /** How often a watch asks a server without IDLE for news (idle-watcher.ts `WITHOUT_IDLE_POLL_MS`). */
  readonly withoutIdlePollMs?: number;
  readonly logger?: Logger;
  /**
   * Which resolved addresses hosts outside `insecureHosts` may use (default: public only, the SSRF guard).
   * Tests replace it to reach a loopback server that must otherwise be treated as a remote one.
   */
  readonly addressPolicy?: AddressPolicy;
  /** Tests only: DNS answers (a name with several addresses). */
  readonly lookup?: HostLookup;
}

/**
 * Opens IMAP sessions (generic IMAP and iCloud). Connection slots are counted per server *and* account: providers
 * cap connections per account, and a cap per server alone would let eight long-lived IDLE watches of eight
 * different people on imap.gmail.com block everyone else.
 */
export class ImapConnector implements MailConnector {
  private readonly policy: DialPolicy;
  private readonly slots: ConnectionSemaphore;
  private readonly maxPerAccount: number;
  private readonly pool: ConnectionPool;
  private readonly log: Logger;
  private readonly pollMs: number | undefined;

  constructor(opts: ImapConnectorOptions = {}) {
    this.log = opts.logger ?? silentLogger;
    this.pollMs = opts.withoutIdlePollMs;
    this.policy = {
      insecureHosts: new Set((opts.insecureHosts ?? []).map(normalizeHost)),
      addressPolicy: opts.addressPolicy ?? isPublicHostAddress,
      connectTimeoutMs: opts.connectTimeoutMs ?? 15_000,
      logger: this.log,
      lookup: opts.lookup,
    };
    this.maxPerAccount = opts.maxConnectionsPerHost ?? 8;
    this.slots = new ConnectionSemaphore(this.maxPerAccount);
    this.pool = new ConnectionPool({ idleMs: opts.pooledIdleMs, maxAgeMs: opts.maxLoginAgeMs });
  }

  /** Logs out the connections kept for reuse (shutdown). */
  close(): void {
    this.pool.closeAll();
  }

  /** IMAP connections open now (sessions and IDLE watches), for metrics. */
  openConnections(): number {
    return this.slots.total();
  }

  async connect(endpoint: ImapEndpoint, credential: MailCredential): Promise<MailSession> {
    const key = slotKey(endpoint, credential);
    const login = credentialDigest(credential);
    // A pooled connection keeps the folder it had open read-only: the next session reading that folder goes
    // straight to its command (no CLOSE, no EXAMINE). What must not trust that open state re-selects (a sync's
    // UIDNEXT and HIGHESTMODSEQ, folder-changes.ts) or closes it first (APPEND, imap-writer.ts).
    const ready =
      this.pool.take(key, login) ?? (await this.commandConnection(endpoint, credential, key, login));
    const { client, release } = ready;
    return new ImapSession({
      client,
      release,
      recycle: () => this.pool.give(key, login, ready),
      openWatchConnection: () => this.open(endpoint, credential, 'idle'),
      watchPollMs: this.pollMs,
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
      pollMs: this.pollMs,
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

  /**
   * A new connection when a slot is free; with every slot taken, whichever comes first: a connection another session
   * gives back, or a freed slot. Without the first, returned connections would sit in the pool holding the very
   * slots the waiting sessions need.
   */
  private async commandConnection(
    endpoint: ImapEndpoint,
    credential: MailCredential,
    key: string,
    login: string,
  ): Promise<WatchConnection> {
    if (this.slots.active(key) < this.maxPerAccount) return this.open(endpoint, credential, 'commands');
    const stop = new AbortController();
    const handedBack = this.pool.next(key, login, stop.signal);
    const opened = this.open(endpoint, credential, 'commands', stop.signal);
    let won: WatchConnection | undefined;
    try {
      won = await Promise.race([handedBack, opened]);
      return won;
    } finally {
      stop.abort(new Error('no longer wanted'));
      // The loser may still produce a connection: a good one, so it waits in the pool.
      const keep = (c: WatchConnection) => {
        if (c !== won) this.pool.give(key, login, c);
      };
      handedBack.then(keep, () => undefined);
      opened.then(keep, () => undefined);
    }
  }

  private async open(
    endpoint: ImapEndpoint,
    credential: MailCredential,
    purpose: 'commands' | 'idle',
    signal?: AbortSignal,
  ): Promise<WatchConnection> {
    const key = slotKey(endpoint, credential);
    // Every slot taken, some by connections only waiting to be reused: one of those makes room.
    if (this.slots.active(key) >= this.maxPerAccount) this.pool.evictOne(key);
    const release = await this.slots.acquire(key, signal);
    try {
      const client = await openImapClient(endpoint, credential, this.policy, purpose);
      // The slot is free once the connection is gone, whoever holds it then (a session, a watch, the pool).
      client.on('close', release);
      return { client, release };
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

/** Tells logins apart without keeping the secret as a key. */
function credentialDigest(credential: MailCredential): string {
  return sha256Hex(JSON.stringify(credential));
}

function slotKey(endpoint: ImapEndpoint, credential: MailCredential): string {
  return `${normalizeHost(endpoint.host)}:${endpoint.port}\n${credential.username.toLowerCase()}`;
}
