import autocannon from 'autocannon';

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

export interface LoadTarget {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Drives `target` with `connections` concurrent keep-alive connections for `seconds`. */
export async function load(
  target: LoadTarget,
  opts: { connections: number; seconds: number },
): Promise<LoadResult> {
  const r = await autocannon({
    url: target.url,
    method: 'POST',
    connections: opts.connections,
    duration: opts.seconds,
    headers: target.headers,
    body: target.body,
  });
  return {
    requestsPerSecond: Math.round(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

export interface Comparison {
  readonly ours: LoadResult;
  readonly bare: LoadResult;
  /** ours / bare req/s of each round. */
  readonly roundRatios: readonly number[];
}

/**
 * Loads two targets in alternation — warm-up of each, then `rounds` × (ours, bare) — so that both see the same
 * machine: on a shared two-core VM the throughput of one server moves by ±25% from one ten-second window to the
 * next, and timing ours and then bare once turned that drift into the ratio. Each side's figures are the median
 * round (by req/s); the ratio reported is the median of the per-round ratios.
 */
export async function compare(
  ours: LoadTarget,
  bare: LoadTarget,
  opts: { connections: number; seconds: number; rounds: number },
): Promise<Comparison> {
  await load(ours, { connections: opts.connections, seconds: 2 });
  await load(bare, { connections: opts.connections, seconds: 2 });
  const a: LoadResult[] = [];
  const b: LoadResult[] = [];
  for (let i = 0; i < opts.rounds; i++) {
    a.push(await load(ours, opts));
    b.push(await load(bare, opts));
  }
  const median = (xs: readonly LoadResult[]) => medianBy(xs, (x) => x.requestsPerSecond);
  const total = (xs: readonly LoadResult[], k: 'non2xx' | 'errors') => xs.reduce((n, x) => n + x[k], 0);
  return {
    ours: { ...median(a), non2xx: total(a, 'non2xx'), errors: total(a, 'errors') },
    bare: { ...median(b), non2xx: total(b, 'non2xx'), errors: total(b, 'errors') },
    roundRatios: a.map((x, i) => x.requestsPerSecond / b[i]!.requestsPerSecond),
  };
}

const medianBy = <T>(xs: readonly T[], key: (x: T) => number): T =>
  [...xs].sort((x, y) => key(x) - key(y))[Math.floor(xs.length / 2)]!;

export const medianOf = (xs: readonly number[]): number => medianBy(xs, (x) => x);
