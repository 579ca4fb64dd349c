import type { Clock } from '../../lib/clock.ts';

export interface ContentCacheOptions {
  readonly clock: Clock;
  /** How long an entry is kept after it was read from the provider. */
  readonly ttlMs: number;
  /** Entries kept at most. */
  readonly maxEntries: number;
  /** The sum of the entries' weights (characters of text) kept at most. */
  readonly maxWeight: number;
}

interface Entry<V> {
  readonly value: V;
  readonly weight: number;
  readonly expiresAt: number;
}

/**
 * A small least-recently-used map with a time to live and a weight budget, for what the provider gave us that cannot
 * change under its key (decision 0032). Nothing in it outlives `ttlMs`: expired entries are dropped when met and by
 * a timer that runs only while the map holds something, so an idle process keeps none of it.
 */
export class ContentCache<V> {
  private readonly map = new Map<string, Entry<V>>();
  private readonly opts: ContentCacheOptions;
  private weight = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(opts: ContentCacheOptions) {
    this.opts = opts;
  }

  get(key: string): V | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt <= this.opts.clock.now().getTime()) {
      this.delete(key, e);
      return undefined;
    }
    // Most recently used last: Map keeps insertion order.
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  set(key: string, value: V, weight: number): void {
    if (weight > this.opts.maxWeight || this.opts.maxEntries <= 0) return;
    const old = this.map.get(key);
    if (old !== undefined) this.delete(key, old);
    this.map.set(key, { value, weight, expiresAt: this.opts.clock.now().getTime() + this.opts.ttlMs });
    this.weight += weight;
    for (const [k, e] of this.map) {
      if (this.map.size <= this.opts.maxEntries && this.weight <= this.opts.maxWeight) break;
      this.delete(k, e);
    }
    this.timer ??= setInterval(() => {
      this.prune();
    }, this.opts.ttlMs).unref();
  }

  /** Entries kept now, and their weight. */
  size(): { entries: number; weight: number } {
    return { entries: this.map.size, weight: this.weight };
  }

  clear(): void {
    this.map.clear();
    this.weight = 0;
    this.stopTimer();
  }

  private prune(): void {
    const now = this.opts.clock.now().getTime();
    for (const [k, e] of this.map) if (e.expiresAt <= now) this.delete(k, e);
  }

  private delete(key: string, e: Entry<V>): void {
    this.map.delete(key);
    this.weight -= e.weight;
    if (this.map.size === 0) this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
