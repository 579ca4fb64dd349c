import { generateKeyPairSync } from 'node:crypto';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import type { DnsResolver } from '../../src/adapters/mail/dkim/mailauth-dkim-verifier.ts';

/**
 * A DKIM signer of our own for tests: a key made by the test, its TXT record published through a resolver the
 * service is handed instead of DNS. Nothing here touches the network.
 */
export interface DkimSigner {
  readonly domain: string;
  readonly selector: string;
  /** Signs `raw` with the given h= list; returns the signed message (signature prepended). */
  sign(raw: Buffer, headerList: readonly string[]): Promise<Buffer>;
  /** A resolver answering this signer's key record; other names do not exist. */
  readonly resolver: DnsResolver;
}

/** RFC 8058 §4: the signature must cover both list headers. */
export const ONE_CLICK_HEADERS = [
  'From',
  'To',
  'Subject',
  'Date',
  'Message-ID',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
];

export function dkimSigner(domain: string, selector = 's1'): DkimSigner {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
  const name = `${selector}._domainkey.${domain}`;
  return {
    domain,
    selector,
    async sign(raw, headerList) {
      // Signatures go in signatureData: top-level signing options alone produce none (mailauth 7.1).
      const { signatures } = await dkimSign(raw, {
        signatureData: [
          {
            signingDomain: domain,
            selector,
            privateKey: pem,
            canonicalization: 'relaxed/relaxed',
            headerList: [...headerList],
          },
        ],
      } as Parameters<typeof dkimSign>[1]);
      return Buffer.concat([Buffer.from(signatures), raw]);
    },
    resolver: (n, rrtype) =>
      rrtype === 'TXT' && n.toLowerCase() === name
        ? Promise.resolve([[record]])
        : Promise.reject(Object.assign(new Error(`ENOTFOUND ${n}`), { code: 'ENOTFOUND' })),
  };
}
