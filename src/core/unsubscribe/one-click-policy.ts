import { dkimPasses, parseAuthResults } from '../mail/auth-results.ts';
import { domainKey } from '../messages/address-key.ts';
import {
  headerFields,
  isOneClickPost,
  occurrences,
  parseMailto,
  unsubscribeUris,
  type MailtoTarget,
} from './list-headers.ts';

/** One DKIM signature of a message, as a verifier reports it. */
export interface DkimSignature {
  /** RFC 8601 result keyword: only `pass` counts. */
  readonly result: string;
  /** The signing domain (d=). */
  readonly domain: string;
  /** The h= tag's field names, lower-case, in order, repeats kept (a name listed twice signs two copies). */
  readonly signedHeaders: readonly string[];
  /** The b= value, without spaces: the provider's `header.b` names a signature by its start. */
  readonly signature: string;
  /**
   * The signature over the header fields verifies with the signer's key, but the body's hash is not the one signed: the
   * body was changed after signing (Exchange Online rewrites stored HTML). `result` is then not `pass`.
   */
  readonly bodyChanged: boolean;
}

/** Why a message offers no one-click unsubscribe we will use. */
export type NoOneClickReason =
  | 'no_list_unsubscribe'
  | 'duplicated_header'
  | 'mailto_only'
  | 'not_https'
  | 'several_https_links'
  | 'no_one_click_post'
  | 'unsigned'
  | 'signature_not_covering'
  /** Larger than the whole message the check reads (MAX_RAW_BYTES): its signature cannot be checked here. */
  | 'too_large'
  /**
   * The person's provider found the From forged (`dmarc=fail` in the topmost Authentication-Results): a request, or
   * a link opened by hand, would go to the forger's host and tell it the address is read (decision 0104).
   */
  | 'sender_failed_dmarc';

/** What the person can still do by hand when one-click is not available. */
export interface UnsubscribeFallback {
  readonly mailto: MailtoTarget | null;
  /** An http(s) link from the header, for the person to open themselves; we never fetch it. */
  readonly link: string | null;
}

export type OneClickVerdict =
  | { readonly oneClick: true; readonly url: string; readonly signedBy: string }
  | { readonly oneClick: false; readonly reason: NoOneClickReason; readonly fallback: UnsubscribeFallback };

const LU = 'list-unsubscribe';
const LUP = 'list-unsubscribe-post';

/**
 * RFC 8058 one-click, strictly: the message has exactly one List-Unsubscribe field with exactly one https URI,
 * exactly one `List-Unsubscribe-Post: List-Unsubscribe=One-Click`, and a DKIM signature that passes and covers
 * both (§4). A second copy of either field is refused even when a signature covers one of them: a verifier
 * checks the bottom-most copy, and a copy added above it in transit would be the one a reader sees.
 */
export async function oneClickVerdict(
  raw: Uint8Array,
  signatures: () => Promise<readonly DkimSignature[]>,
): Promise<OneClickVerdict> {
  const fields = headerFields(raw);
  const lists = occurrences(fields, LU);
  const posts = occurrences(fields, LUP);
  const uris = lists.flatMap((f) => unsubscribeUris(f.value));
  const fallback = fallbackOf(uris);
  const no = (reason: NoOneClickReason): OneClickVerdict => ({ oneClick: false, reason, fallback });

  // The provider's own verdict is the topmost field (decision 0101): a forged message offers nothing, not even by hand.
  const [topmost] = occurrences(fields, 'authentication-results');
  if (topmost !== undefined && parseAuthResults(topmost.value).dmarc === 'fail')
    return { oneClick: false, reason: 'sender_failed_dmarc', fallback: { mailto: null, link: null } };
  if (lists.length === 0 || uris.length === 0) return no('no_list_unsubscribe');
  if (lists.length > 1 || posts.length > 1) return no('duplicated_header');
  const https = uris.filter((u) => /^https:\/\//i.test(u));
  if (https.length === 0) return no(uris.some((u) => /^http:\/\//i.test(u)) ? 'not_https' : 'mailto_only');
  if (https.length > 1) return no('several_https_links');
  const [post] = posts;
  if (post === undefined || !isOneClickPost(post.value)) return no('no_one_click_post');
  // Asked for only now, when the headers offer a one-click request: each signature costs a DNS lookup (decision 0099).
  const all = await signatures();
  const covers = (s: DkimSignature) => s.signedHeaders.includes(LU) && s.signedHeaders.includes(LUP);
  const passing = all.filter((s) => s.result === 'pass');
  const covering =
    passing.find(covers) ??
    all.find((s) => s.bodyChanged && covers(s) && providerVerified(s, topmost?.value ?? null));
  if (covering !== undefined) return { oneClick: true, url: https[0] ?? '', signedBy: covering.domain };
  return no(passing.length === 0 ? 'unsigned' : 'signature_not_covering');
}

/**
 * A signature whose header fields verify here, over a body changed since: taken when the person's provider says, in
 * its topmost Authentication-Results, that it verified a signature of the same domain on arrival — the same
 * signature when it names one by `header.b`. Exchange Online checks DKIM on arrival and then rewrites stored HTML, so
 * the MIME Graph hands out fails the body hash of nearly every HTML newsletter (decision 0157).
 */
function providerVerified(s: DkimSignature, topmost: string | null): boolean {
  const domain = domainKey(s.domain);
  return dkimPasses(topmost).some(
    (p) => domainKey(p.domain) === domain && (p.b === null || s.signature.startsWith(p.b)),
  );
}

/** What the person can do by hand with a List-Unsubscribe value's URIs. */
function fallbackOf(uris: readonly string[]): UnsubscribeFallback {
  return {
    mailto: uris.map(parseMailto).find((m) => m !== undefined) ?? null,
    link: uris.find((u) => /^https?:\/\//i.test(u)) ?? null,
  };
}

/**
 * The verdict on a message too large to read whole (its signature covers its body): no one-click request, and the
 * fallback from its List-Unsubscribe header as the index keeps it.
 */
export function tooLargeVerdict(
  listUnsubscribe: string | null,
): Extract<OneClickVerdict, { oneClick: false }> {
  return {
    oneClick: false,
    reason: 'too_large',
    fallback: fallbackOf(listUnsubscribe === null ? [] : unsubscribeUris(listUnsubscribe)),
  };
}
