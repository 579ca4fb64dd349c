import type { ClientMetadataFetcher } from '../../oauth/client/client.ts';
import { guardedRequest, GuardedFetchError, type GuardedFetchOptions } from './guarded-fetch.ts';

/** Fetches Client ID Metadata Documents: SSRF-guarded, ≤ 16 KB, ≤ 5 s, JSON only, no redirects. */
export function metadataDocumentFetcher(opts: Partial<GuardedFetchOptions> = {}): ClientMetadataFetcher {
  const options: GuardedFetchOptions = { timeoutMs: 5000, maxBytes: 16_384, ...opts };
  return {
    async fetch(url) {
      const res = await guardedRequest(
        url,
        { method: 'GET', headers: { accept: 'application/json' } },
        options,
      );
      if (res.status >= 300 && res.status < 400) throw new GuardedFetchError('redirects are not followed');
      if (res.status !== 200) throw new GuardedFetchError(`answered HTTP ${String(res.status)}`);
      try {
        return JSON.parse(res.body.toString('utf8')) as unknown;
      } catch {
        throw new GuardedFetchError('the document is not JSON');
      }
    },
  };
}
