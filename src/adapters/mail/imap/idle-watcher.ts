import type { ImapFlow } from 'imapflow';
import { MailAuthError } from '../../../core/mail/mail-ports.ts';
import type { Logger } from '../../../lib/logger.ts';

/** How often a server without IDLE is asked for news (decision 0071). */
export const WITHOUT_IDLE_POLL_MS = 30_000;

/** A dedicated connection for IDLE, with the release of its connection slot. */
export interface WatchConnection {
  readonly client: ImapFlow;
  readonly release: () => void;
}

export interface WatchOptions {
  readonly path: string;
  /** Opens a fresh logged-in connection (IDLE needs its own: it blocks every other command, RFC 2177). */
  readonly open: () => Promise<WatchConnection>;
  readonly onChange: () => void;
  readonly log: Logger;
  /** On a server without IDLE, how often it is asked for news (NOOP); default WITHOUT_IDLE_POLL_MS. */
  readonly pollMs?: number | undefined;
}

const MAX_BACKOFF_MS = 5 * 60_000;
/** After a refused login, the next try: a few an hour, far from what locks an account (decision 0095). */
const REFUSED_RETRY_MS = 15 * 60_000;
/** A connection that stayed up this long counts as recovered: the next loss starts the backoff from 1 s again. */
const STABLE_MS = 60_000;

/**
 * Watches one folder with IMAP IDLE on a connection of its own. imapflow re-issues IDLE every `maxIdleTime`
 * (set by openImapClient) so servers and NAT boxes keep the session. EXISTS, EXPUNGE and FETCH (flags) pushes all
 * end in `onChange`, coalesced per event-loop turn. A dropped connection is re-opened with backoff, followed by
 * one `onChange`, since anything could have happened meanwhile; a refused login asks for a sync (`onChange`), which
 * tells a stored password gone bad from a server's passing refusal, and is tried again after a long pause.
 */
export class IdleWatcher {
  private readonly opts: WatchOptions;
  private current: WatchConnection | undefined;
  private stopped = false;
  private notifyQueued = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private connectedAt = 0;

  constructor(opts: WatchOptions) {
    this.opts = opts;
  }

  /** Connects and starts IDLE; rejects when the first connection fails. */
  async start(): Promise<void> {
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const conn = this.current;
    this.current = undefined;
    if (conn === undefined) return;
    try {
      await conn.client.logout(); // breaks IDLE with DONE, then LOGOUT
    } catch {
      conn.client.close();
    } finally {
      conn.release();
    }
  }

  private async connect(): Promise<void> {
    const conn = await this.opts.open();
    const { client } = conn;
    const notify = (): void => this.notify();
    client.on('exists', notify);
    client.on('expunge', notify);
    client.on('flags', notify);
    client.on('close', () => {
      conn.release();
      if (this.current !== conn) return; // stop() or a failed start: nothing to recover
      this.current = undefined;
      // A server that accepts and drops again at once does not reset the backoff.
      if (Date.now() - this.connectedAt >= STABLE_MS) this.failures = 0;
      if (!this.stopped) this.reconnectLater();
    });
    try {
      await client.mailboxOpen(this.opts.path, { readOnly: true });
    } catch (err) {
      client.close();
      throw err;
    }
    if (this.stopped) {
      // stop() ran while we were connecting
      await client.logout().catch(() => client.close());
      conn.release();
      return;
    }
    this.current = conn;
    this.connectedAt = Date.now();
    void this.idleLoop(client);
  }

  /**
   * idle() returns whenever IDLE is broken (a keepalive NOOP after a socket timeout, logout); go back in. A server
   * without IDLE (RFC 2177) is asked with a NOOP every `pollMs` instead: its answer carries the folder's news, which
   * the listeners above hear as they hear IDLE's. imapflow's own fallback asks every two minutes.
   */
  private async idleLoop(client: ImapFlow): Promise<void> {
    while (this.watching(client)) {
      const started = Date.now();
      try {
        if (client.capabilities.has('IDLE')) await client.idle();
        else {
          const pollMs = this.opts.pollMs ?? WITHOUT_IDLE_POLL_MS;
          await new Promise((resolve) => setTimeout(resolve, pollMs).unref());
          if (!this.watching(client)) break;
          await client.noop();
        }
      } catch (err) {
        this.opts.log.debug({ err, path: this.opts.path }, 'IDLE ended with an error');
      }
      // Never spin: a server that ends IDLE at once gets at most one IDLE per second.
      if (Date.now() - started < 1000) await new Promise((resolve) => setTimeout(resolve, 1000).unref());
    }
  }

  /** This connection is still the watch's own (not stopped, not replaced, not closed). */
  private watching(client: ImapFlow): boolean {
    return !this.stopped && this.current?.client === client && client.usable;
  }

  private notify(): void {
    if (this.notifyQueued || this.stopped) return;
    this.notifyQueued = true;
    setImmediate(() => {
      this.notifyQueued = false;
      if (this.stopped) return;
      try {
        this.opts.onChange();
      } catch (err) {
        this.opts.log.warn({ err, path: this.opts.path }, 'watch callback failed');
      }
    });
  }

  /**
   * Exponential backoff from 1 s to 5 min with jitter: each wait is drawn from the upper half of its step, so the
   * watchers of every inbox on a server that restarts do not all dial again in the same instant.
   */
  private reconnectLater(): void {
    const step = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** this.failures);
    const delay = Math.round(step / 2 + Math.random() * (step / 2));
    this.failures++;
    this.opts.log.info({ path: this.opts.path, delayMs: delay }, 'IDLE connection lost; reconnecting');
    this.retryTimer = setTimeout(() => {
      this.reconnectNow();
    }, delay).unref();
  }

  private reconnectNow(): void {
    this.connect().then(
      () => {
        this.notify();
      },
      (err: unknown) => {
        if (err instanceof MailAuthError) {
          // A refused password tried again and again can lock the account at the provider; a watch that ends for
          // good on one refusal is never heard of again — and some servers refuse a good password now and then.
          // A sync now tells which: it marks the inbox for reconnecting if the stored password is refused (and
          // this watch is then stopped); if it works, the watch tries again after a long pause.
          this.opts.log.warn(
            { path: this.opts.path, retryInMs: REFUSED_RETRY_MS },
            'IDLE login refused; a sync checks the credential',
          );
          this.notify();
          if (!this.stopped)
            this.retryTimer = setTimeout(() => {
              this.reconnectNow();
            }, REFUSED_RETRY_MS).unref();
          return;
        }
        this.opts.log.info({ err, path: this.opts.path }, 'IDLE reconnect failed');
        if (!this.stopped) this.reconnectLater();
      },
    );
  }
}
