const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `probe` until it gives a value (not undefined), every 100–200 ms, and returns it; throws after `ms` naming
 * `what` and the last error the probe threw. For states a service reaches by itself (watchers back, mail listed).
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms: number,
  everyMs = 200,
): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end)
      throw new Error(`${what}: not within ${String(ms)} ms ${last instanceof Error ? last.message : ''}`);
    await pause(everyMs);
  }
}
