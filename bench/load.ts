import autocannon from 'autocannon';

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

/** Drives `url` with `connections` concurrent keep-alive connections for `seconds`, after a short warm-up. */
export async function load(
  url: string,
  opts: { connections: number; seconds: number; headers: Record<string, string>; body: string },
): Promise<LoadResult> {
  const run = (duration: number) =>
    autocannon({
      url,
      method: 'POST',
      connections: opts.connections,
      duration,
      headers: opts.headers,
      body: opts.body,
    });
  await run(2);
  const r = await run(opts.seconds);
  return {
    requestsPerSecond: Math.round(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}
