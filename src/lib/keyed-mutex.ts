/** Runs work one at a time per key; several keys are taken together (in sorted order, so callers cannot deadlock). */
export interface Serializer {
  run<T>(keys: readonly string[], work: () => Promise<T>): Promise<T>;
}

/**
 * Runs async work one at a time per key, in arrival order, within this process. Several keys are taken in sorted
 * order, so two callers wanting overlapping sets cannot deadlock. Keys are forgotten once nobody waits on them.
 */
export class KeyedMutex implements Serializer {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    const releases: (() => void)[] = [];
    try {
      for (const key of [...new Set(keys)].sort()) releases.push(await this.acquire(key));
      return await work();
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  /** How many keys are held or waited on (for tests: the map does not grow without bound). */
  get size(): number {
    return this.tails.size;
  }

  private async acquire(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    return () => {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}
