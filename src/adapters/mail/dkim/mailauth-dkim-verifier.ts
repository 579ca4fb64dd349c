import type { DkimVerifier } from '../../../core/unsubscribe/dkim-verifier.ts';
import type { DkimSignature } from '../../../core/unsubscribe/one-click-policy.ts';
import { DEMO_DKIM_SELECTOR, demoDkimRecord } from './demo-dkim-key.ts';

/** `dns.promises.resolve`'s shape, which mailauth takes for its lookups (TXT for DKIM keys). */
export type DnsResolver = (name: string, rrtype: string) => Promise<string[][]>;

const notFound = (name: string) => Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });

/** Answers only the demo selector's key, for any domain; every other name does not exist. */
const demoResolver: DnsResolver = (name, rrtype) => {
  if (rrtype === 'TXT' && name.startsWith(`${DEMO_DKIM_SELECTOR}._domainkey.`))
    return Promise.resolve([[demoDkimRecord()]]);
  return Promise.reject(notFound(name));
};

/**
 * DKIM (RFC 6376) with mailauth. `resolver` replaces DNS (tests publish their keys through it); the default is
 * the system resolver. A message the verifier cannot parse counts as unsigned.
 */
export function mailauthDkimVerifier(opts: { resolver?: DnsResolver } = {}): DkimVerifier {
  return {
    async verify(raw, { demo }) {
      const resolver = demo ? demoResolver : opts.resolver;
      // Loaded on first use: mailauth costs ~190 ms to import, which every start (and CLI command) would pay.
      const { dkimVerify } = await import('mailauth/lib/dkim/verify.js');
      let result;
      try {
        result = await dkimVerify(Buffer.from(raw), resolver === undefined ? {} : { resolver });
      } catch {
        return [];
      }
      return result.results.map((r): DkimSignature => ({
        result: r.status.result,
        domain: r.signingDomain ?? '',
        // mailauth gives h= as one string, "A: B: C" (not an array as its docs say).
        signedHeaders: (r.signingHeaders?.keys ?? '')
          .toLowerCase()
          .split(/\s*:\s*/)
          .filter((h) => h !== ''),
      }));
    },
  };
}
