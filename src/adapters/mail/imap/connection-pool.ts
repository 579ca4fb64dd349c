import type { ImapFlow } from 'imapflow';
import type { WatchConnection } from './idle-watcher.ts';

/** How long a logged-in connection waits for its next session before it logs out. */
export const POOLED_IDLE_MS = 20_000;
/**
 * How long one login is reused at most. A password changed or revoked at the server does not end the sessions
 * already logged in (Dovecot keeps them), so without a bound a busy inbox would never notice; with it, the next
 * session after this long logs in again and meets the refusal (needs_reconnect).
 */
export const MAX_LOGIN_AGE_MS = 60_000;

interface Idle {
  readonly conn: WatchConnection;
  /** Which credential logged it in (a digest): a changed password never reuses the old login. */
  readonly credential: string;
  readonly timer: NodeJS.Timeout;
  /** The server closed it while it waited. */
  readonly onClose: () => void;
}

/**
 * Logged-in command connections kept for the next session of the same account, so that reading one message is a
 * FETCH, not a TCP connect, a LOGIN and a logout (decision 0026: `get_message` on IMAP went from ~17 calls a second
 * to what the server can fetch). A pooled connection keeps its connection slot (host-semaphore.ts) — the server
 * counts it — and gives it up after `POOLED_IDLE_MS` unused, when the server closes it, or at once when a new
 * connection for the same account needs the slot.
 */
interface Wanted {
  readonly credential: string;
  readonly deliver: (conn: WatchConnection) => void;
}

export class ConnectionPool {
  private readonly idle = new Map<string, Idle[]>();
  private readonly wanted = new Map<string, Wanted[]>();
  private readonly idleMs: number;
  private readonly maxAgeMs: number;
  /** When each connection was first given back: about when it logged in. */
  private readonly born = new WeakMap<ImapFlow, number>();

  constructor(opts: { idleMs?: number | undefined; maxAgeMs?: number | undefined } = {}) {
    this.idleMs = opts.idleMs ?? POOLED_IDLE_MS;
    this.maxAgeMs = opts.maxAgeMs ?? MAX_LOGIN_AGE_MS;
  }

  /** The most recently returned connection of this account and credential, if one is still usable. */
  take(key: string, credential: string): WatchConnection | undefined {
    const list = this.idle.get(key);
    for (let entry = list?.pop(); entry !== undefined; entry = list?.pop()) {
      clearTimeout(entry.timer);
      entry.conn.client.off('close', entry.onClose);
      if (list?.length === 0) this.idle.delete(key);
      const age = Date.now() - (this.born.get(entry.conn.client) ?? 0);
      if (entry.credential === credential && entry.conn.client.usable && age < this.maxAgeMs)
        return entry.conn;
      discard(entry.conn);
    }
    return undefined;
  }

  /**
   * Takes back a connection whose session ended cleanly: logged in, nothing in flight, no download open, and no
   * folder open for writing (CLOSE there would expunge messages someone marked \Deleted).
   * Anything else is logged out.
   */
  give(key: string, credential: string, conn: WatchConnection): void {
    const selected = conn.client.mailbox;
    const born = this.born.get(conn.client) ?? Date.now();
    this.born.set(conn.client, born);
    if (
      !reusable(conn.client) ||
      (selected !== false && selected.readOnly !== true) ||
      Date.now() - born >= this.maxAgeMs ||
      this.idleMs <= 0
    )
      discard(conn);
    else this.keep(key, credential, conn);
  }

  private keep(key: string, credential: string, conn: WatchConnection): void {
    // A session waiting for a connection of this login takes it straight away.
    const queue = this.wanted.get(key);
    const at = queue?.findIndex((w) => w.credential === credential) ?? -1;
    if (queue !== undefined && at >= 0) {
      const [w] = queue.splice(at, 1);
      if (queue.length === 0) this.wanted.delete(key);
      w?.deliver(conn);
      return;
    }
    const entry: Idle = {
      conn,
      credential,
      timer: setTimeout(() => this.drop(key, entry), this.idleMs).unref(),
      onClose: () => this.drop(key, entry, false),
    };
    conn.client.once('close', entry.onClose);
    const list = this.idle.get(key) ?? [];
    list.push(entry);
    this.idle.set(key, list);
  }

  /**
   * Resolves with the next connection of this login a session gives back (`give`), for a caller that found every
   * slot taken; aborting withdraws the wish.
   */
  next(key: string, credential: string, signal: AbortSignal): Promise<WatchConnection> {
    return new Promise((resolve, reject) => {
      const w: Wanted = {
        credential,
        deliver: (conn) => {
          signal.removeEventListener('abort', onAbort);
          resolve(conn);
        },
      };
      const onAbort = () => {
        const queue = this.wanted.get(key);
        const at = queue?.indexOf(w) ?? -1;
        if (queue === undefined || at < 0) return;
        queue.splice(at, 1);
        if (queue.length === 0) this.wanted.delete(key);
        reject(signal.reason as Error);
      };
      const queue = this.wanted.get(key) ?? [];
      queue.push(w);
      this.wanted.set(key, queue);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Logs out the longest-idle connection of this account, freeing its slot; false when it has none. */
  evictOne(key: string): boolean {
    const oldest = this.idle.get(key)?.[0];
    if (oldest === undefined) return false;
    this.drop(key, oldest);
    return true;
  }

  /** How many connections wait here (tests and metrics). */
  size(key?: string): number {
    if (key !== undefined) return this.idle.get(key)?.length ?? 0;
    let n = 0;
    for (const list of this.idle.values()) n += list.length;
    return n;
  }

  /** Logs every pooled connection out (shutdown). */
  closeAll(): void {
    for (const [key, list] of [...this.idle]) for (const entry of [...list]) this.drop(key, entry);
  }

  private drop(key: string, entry: Idle, logout = true): void {
    const list = this.idle.get(key);
    const at = list?.indexOf(entry) ?? -1;
    if (list === undefined || at < 0) return;
    list.splice(at, 1);
    if (list.length === 0) this.idle.delete(key);
    clearTimeout(entry.timer);
    entry.conn.client.off('close', entry.onClose);
    if (logout) discard(entry.conn);
    else entry.conn.release();
  }
}

/** imapflow's own test for "a caller is mid-sequence" (a lock, a command, a queued one, an open download). */
function reusable(client: ImapFlow): boolean {
  const busy = (client as unknown as { connectionBusy?: () => boolean }).connectionBusy;
  return client.usable && typeof busy === 'function' && !busy.call(client);
}

/** Logs out (or drops) a connection and frees its slot. */
export function discard(conn: WatchConnection): void {
  void conn.client
    .logout()
    .catch(() => conn.client.close())
    .finally(() => conn.release());
}
