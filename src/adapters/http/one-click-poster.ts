import type { PostOutcome, UnsubscribePoster } from '../../core/unsubscribe/unsubscribe-poster.ts';
import type { HostLookup } from '../net/host-guard.ts';
import { guardedRequest, GuardedRefusedError } from './guarded-fetch.ts';

export interface OneClickPosterOptions {
  /** Host names an operator allows although they resolve to private addresses. */
  readonly allowPrivateHosts?: readonly string[];
  readonly timeoutMs?: number;
  /** Tests only: DNS answers and a CA for a local https sink. */
  readonly lookup?: HostLookup;
  readonly ca?: string;
}

/** Enough to see a status line and a short page; the rest of a response is never read. */
const MAX_RESPONSE_BYTES = 16 * 1024;

/**
 * The RFC 8058 §3.2 request: `POST` with `List-Unsubscribe=One-Click` as a form body, through the SSRF-guarded
 * client (https only, public addresses only — checked on the address dialled, IP literals included — no
 * redirects, no cookies, no credentials, bounded time and size).
 */
export function oneClickPoster(opts: OneClickPosterOptions = {}): UnsubscribePoster {
  return {
    async post(url): Promise<PostOutcome> {
      try {
        const res = await guardedRequest(
          url,
          {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: 'List-Unsubscribe=One-Click',
          },
          {
            timeoutMs: opts.timeoutMs ?? 10_000,
            maxBytes: MAX_RESPONSE_BYTES,
            truncateBody: true,
            ...(opts.allowPrivateHosts !== undefined && { allowPrivateHosts: opts.allowPrivateHosts }),
            ...(opts.lookup !== undefined && { lookup: opts.lookup }),
            ...(opts.ca !== undefined && { ca: opts.ca }),
          },
        );
        return { kind: 'answered', status: res.status };
      } catch (e) {
        const reason = e instanceof Error ? e.message : 'the request failed';
        return e instanceof GuardedRefusedError ? { kind: 'refused', reason } : { kind: 'failed', reason };
      }
    },
  };
}
