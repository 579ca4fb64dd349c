import { createHash, verify as verifySignature } from 'node:crypto';
import { promises as dns } from 'node:dns';
import type { DKIMResult } from 'mailauth';
import type { DkimVerifier } from '../../../core/unsubscribe/dkim-verifier.ts';
import type { DkimSignature } from '../../../core/unsubscribe/one-click-policy.ts';
import { headerBlockEnd } from '../mime/header-fields.ts';
import { DEMO_DKIM_SELECTOR, demoDkimRecord } from './demo-dkim-key.ts';

/** `dns.promises.resolve`'s shape, which mailauth takes for its lookups (TXT for DKIM keys). */
export type DnsResolver = (name: string, rrtype: string) => Promise<string[][]>;

/**
 * At most this many DKIM signatures of one message are checked, those that sign both list headers first. mailauth
 * checks every signature, one after another, each with a DNS lookup of a key the sender names: a message carrying
 * 400 signatures made 400 lookups in a row (20 s at 50 ms each; hours against a name server that answers slowly).
 * Mail carries one to three.
 */
export const MAX_SIGNATURES_CHECKED = 5;

/** The system's name servers, a lookup given up after 5 s with one retry (Node's default waits far longer). */
let systemResolver: DnsResolver | undefined;
const systemLookup: DnsResolver = (name, rrtype) => {
  if (systemResolver === undefined) {
    const resolver = new dns.Resolver({ timeout: 5_000, tries: 2 });
    systemResolver = (n, t) => resolver.resolve(n, t) as Promise<string[][]>;
  }
  return systemResolver(name, rrtype);
};

const notFound = (name: string) => Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });

/** Answers only the demo selector's key, for any domain; every other name does not exist. */
const demoResolver: DnsResolver = (name, rrtype) => {
  if (rrtype === 'TXT' && name.startsWith(`${DEMO_DKIM_SELECTOR}._domainkey.`))
    return Promise.resolve([[demoDkimRecord()]]);
  return Promise.reject(notFound(name));
};

/**
 * DKIM (RFC 6376) with mailauth. `resolver` replaces DNS (tests publish their keys through it); the default is
 * the system's name servers. A message the verifier cannot parse counts as unsigned.
 */
export function mailauthDkimVerifier(opts: { resolver?: DnsResolver } = {}): DkimVerifier {
  return {
    async verify(raw, { demo }) {
      const resolver = demo ? demoResolver : (opts.resolver ?? systemLookup);
      // Loaded on first use: mailauth costs ~190 ms to import, which every start (and CLI command) would pay.
      const { dkimVerify } = await import('mailauth/lib/dkim/verify.js');
      const message = whatTheCheckReads(raw);
      if (message === undefined) return [];
      let result;
      try {
        result = await dkimVerify(message, { resolver });
      } catch {
        return [];
      }
      return Promise.all(
        result.results.map(async (r): Promise<DkimSignature> => {
          // mailauth gives h= as one string, "A: B: C" (not an array as its docs say).
          const signedHeaders = (r.signingHeaders?.keys ?? '')
            .toLowerCase()
            .split(':')
            .map((h) => h.trim())
            .filter((h) => h !== '');
          const signature = (r.signature ?? '').replace(/\s+/g, '');
          return {
            result: r.status.result,
            domain: r.signingDomain ?? '',
            signedHeaders,
            signature,
            // Only a signature the one-click check could use is looked at again: one over both list headers.
            bodyChanged:
              signedHeaders.includes('list-unsubscribe') &&
              signedHeaders.includes('list-unsubscribe-post') &&
              (await headerSignatureVerifies(r, signature, resolver)),
          };
        }),
      );
    },
  };
}

/**
 * Whether a signature mailauth set aside for its body hash alone verifies over the header fields it signs (RFC 6376
 * §6.1.3 step 4 without step 3): mailauth stops at a body hash that differs, before it looks the key up. The fields
 * are canonicalized by mailauth (`signingHeaders.canonicalizedHeader`, the block b= signs), the key looked up and
 * checked by mailauth's own lookup; rsa-sha1 is not taken (RFC 8301), nor a signature past its x= expiry
 * (decision 0157).
 */
async function headerSignatureVerifies(
  r: DKIMResult,
  signature: string,
  resolver: DnsResolver,
): Promise<boolean> {
  if (r.status.comment !== 'body hash did not verify' || r.bodyHash === r.bodyHashExpecting) return false;
  const [signAlgo, hashAlgo] = (r.algo ?? '').toLowerCase().split('-');
  if (hashAlgo !== 'sha256' || (signAlgo !== 'rsa' && signAlgo !== 'ed25519')) return false;
  if (r.expiresAfter != null && Date.parse(r.expiresAfter) < Date.now()) return false;
  const header = r.signingHeaders?.canonicalizedHeader;
  if (header === undefined || r.selector === undefined || r.signingDomain === undefined) return false;
  const { getPublicKey } = await import('mailauth/lib/tools.js');
  try {
    const key = await getPublicKey('DKIM', `${r.selector}._domainkey.${r.signingDomain}`, 1024, resolver, {
      hashAlgo,
    });
    if (key.keyType !== signAlgo) return false;
    const signed = Buffer.from(header, 'base64');
    // Ed25519 signs the SHA-256 of the block (RFC 8463 §3), RSA the block with SHA-256 (as mailauth verifies).
    return verifySignature(
      signAlgo === 'rsa' ? 'sha256' : null,
      signAlgo === 'rsa' ? signed : createHash('sha256').update(signed).digest(),
      key.publicKey,
      Buffer.from(signature, 'base64'),
    );
  } catch {
    return false; // no key, a revoked or unusable one, a DNS failure, a key of another type
  }
}

/**
 * A message whose header block runs to more lines than this is not checked: mailauth joins a field's folded lines in
 * time that grows with the square of their number (40,000 lines of one field: 6 s; the 10 MB the check reads:
 * hours). A newsletter's header block has a hundred or two; it counts as unsigned.
 */
export const MAX_HEADER_LINES = 2000;

/**
 * The message as the check reads it — with at most MAX_SIGNATURES_CHECKED of its DKIM-Signature fields, those whose
 * h= names both List-Unsubscribe and List-Unsubscribe-Post first, then the others, in message order; the bytes
 * otherwise unchanged (read and written one byte to a character) — or undefined when its header block is too long to
 * check (MAX_HEADER_LINES).
 */
function whatTheCheckReads(raw: Uint8Array): Buffer | undefined {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  // Node's latin1 is one byte to one character both ways (TextDecoder's "latin1" is windows-1252, which is not).
  const head = bytes.toString('latin1', 0, headerBlockEnd(bytes));
  // Lines split after each LF (a lone CR stays inside its line).
  const lines = head.split(/(?<=\n)/);
  if (lines.length > MAX_HEADER_LINES) return undefined;
  // Each field with its continuation lines, line endings kept.
  const fields: string[] = [];
  for (const line of lines) {
    const last = fields.length - 1;
    if (last >= 0 && (line.startsWith(' ') || line.startsWith('\t')))
      fields[last] = `${fields[last] ?? ''}${line}`;
    else fields.push(line);
  }
  const signatures = fields.flatMap((f, i) => (/^dkim-signature\s*:/i.test(f) ? [i] : []));
  if (signatures.length <= MAX_SIGNATURES_CHECKED) return bytes;
  const covering = (i: number): boolean => {
    const f = fields[i] ?? '';
    const h = /(?:^|;)\s*h\s*=([^;]*)/i.exec(f.slice(f.indexOf(':') + 1))?.[1] ?? '';
    const names = h
      .toLowerCase()
      .split(':')
      .map((n) => n.trim());
    return names.includes('list-unsubscribe') && names.includes('list-unsubscribe-post');
  };
  const kept = new Set(
    [...signatures.filter(covering), ...signatures.filter((i) => !covering(i))].slice(
      0,
      MAX_SIGNATURES_CHECKED,
    ),
  );
  const dropped = new Set(signatures.filter((i) => !kept.has(i)));
  const newHead = fields.filter((_, i) => !dropped.has(i)).join('');
  return Buffer.concat([Buffer.from(newHead, 'latin1'), bytes.subarray(head.length)]);
}
