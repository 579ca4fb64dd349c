import type { Logger } from '../../lib/logger.ts';

/** Distinct mismatched hosts reported per process; beyond that a misconfigured proxy would flood the log. */
const MAX_REPORTED = 5;

/**
 * Warns once per distinct Host that differs from `BASE_URL`'s host: an MCP client configured with
 * `http://localhost:8787/mcp` while `BASE_URL` is `http://127.0.0.1:8787` fails OAuth on its own side (RFC 9728: the
 * protected resource names `BASE_URL`), and the person would otherwise never learn why.
 */
export function hostCheck(
  baseUrl: string,
  log: Logger,
  trustProxy: boolean,
): (header: (name: string) => string | undefined) => void {
  const expected = new URL(baseUrl).host.toLowerCase();
  const reported = new Set<string>();
  return (header) => {
    const forwarded = trustProxy ? header('x-forwarded-host')?.split(',')[0]?.trim() : undefined;
    const host = (forwarded ?? header('host'))?.toLowerCase();
    if (host === undefined || host === expected || reported.has(host) || reported.size >= MAX_REPORTED)
      return;
    reported.add(host);
    log.warn(
      { host: host.slice(0, 200), baseUrl },
      `requests arrive for ${host.slice(0, 200)} but BASE_URL is ${baseUrl}: clients must use exactly ${baseUrl}/mcp (OAuth checks the resource), or set BASE_URL to the address clients use`,
    );
  };
}
