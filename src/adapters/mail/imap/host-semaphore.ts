/**
 * Caps concurrent connections per key; callers beyond the cap wait in FIFO order. Providers enforce their own
 * caps (Gmail ~15 connections per account, Dovecot's `mail_max_userip_connections` defaults to 10) and answer
 * the excess with BYE, so we queue instead of getting refused.
 */
export class ConnectionSemaphore {
  private readonly max: number;
  private readonly slots = new Map<string, { active: number; waiting: (() => void)[] }>();

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError('max must be a positive integer');
    this.max = max;
  }

  /**
   * Resolves when a slot is free; the returned release is idempotent. Aborting while waiting gives up the place in
   * the queue (and rejects with the signal's reason); a slot already handed over is kept.
   */
  async acquire(key: string, signal?: AbortSignal): Promise<() => void> {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = { active: 0, waiting: [] };
      this.slots.set(key, slot);
    }
    const s = slot;
    if (s.active >= this.max) {
      signal?.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const at = s.waiting.indexOf(wake);
          if (at < 0) return; // already woken: the slot is ours
          s.waiting.splice(at, 1);
          reject(signal?.reason as Error);
        };
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        s.waiting.push(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    } else s.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = s.waiting.shift();
      if (next !== undefined) {
        next(); // the slot passes straight to the next waiter
        return;
      }
      s.active--;
      if (s.active === 0) this.slots.delete(key);
    };
  }

  /** Connections open across every key. */
  total(): number {
    let n = 0;
    for (const s of this.slots.values()) n += s.active;
    return n;
  }

  /** Connections currently open for a key (for tests and metrics). */
  active(key: string): number {
    return this.slots.get(key)?.active ?? 0;
  }
}
