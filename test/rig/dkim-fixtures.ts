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
  /** Signs `raw` with the given h= list; returns the signed message (signature prepended). `expires`: an x= tag. */
  sign(raw: Buffer, headerList: readonly string[], opts?: { readonly expires?: Date }): Promise<Buffer>;
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

/** `algorithm`: the a= tag; an ed25519 key's record holds the bare 32-byte key (RFC 8463 §4). */
export function dkimSigner(
  domain: string,
  selector = 's1',
  algorithm: 'rsa-sha256' | 'rsa-sha1' | 'ed25519-sha256' = 'rsa-sha256',
): DkimSigner {
  const ed25519 = algorithm === 'ed25519-sha256';
  const { privateKey, publicKey } = ed25519
    ? generateKeyPairSync('ed25519')
    : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const record = ed25519
    ? `v=DKIM1; k=ed25519; p=${spki.subarray(spki.length - 32).toString('base64')}`
    : `v=DKIM1; k=rsa; p=${spki.toString('base64')}`;
  const name = `${selector}._domainkey.${domain}`;
  return {
    domain,
    selector,
    async sign(raw, headerList, opts = {}) {
      // Signatures go in signatureData: top-level signing options alone produce none (mailauth 7.1).
      const { signatures } = await dkimSign(raw, {
        signatureData: [
          {
            signingDomain: domain,
            selector,
            privateKey: pem,
            canonicalization: 'relaxed/relaxed',
            algorithm,
            headerList: [...headerList],
          },
        ],
        ...(opts.expires !== undefined && {
          signTime: new Date(opts.expires.getTime() - 86_400_000),
          expires: opts.expires,
        }),
      } as Parameters<typeof dkimSign>[1]);
      return Buffer.concat([Buffer.from(signatures), raw]);
    },
    resolver: (n, rrtype) =>
      rrtype === 'TXT' && n.toLowerCase() === name
        ? Promise.resolve([[record]])
        : Promise.reject(Object.assign(new Error(`ENOTFOUND ${n}`), { code: 'ENOTFOUND' })),
  };
}

/**
 * A signed message as Exchange Online hands it out once received (Graph's `$value`, its IMAP): its verdicts in an
 * `Authentication-Results` field on top, written without an authserv-id, and its HTML rewritten — an element added
 * to the head — so that the body no longer hashes as it was signed ("DKIM verification broken on Outlook
 * 365/Exchange because of tampered HTML", Microsoft Tech Community, 2024: "all HTML messages are DKIM invalid" when
 * checked from the mailbox, while Exchange's own verdict says pass). `dkim`: that verdict's DKIM result(s).
 */
export function asExchangeStoresIt(signed: Buffer, dkim: string): Buffer {
  const text = signed.toString('latin1');
  const head = text.indexOf('<head>');
  if (head < 0) throw new Error('asExchangeStoresIt: the message has no <head> to rewrite');
  const at = head + '<head>'.length;
  const rewritten = `${text.slice(0, at)}\r\n<meta http-equiv="Content-Type" content="text/html; charset=utf-8">${text.slice(at)}`;
  const verdict = `Authentication-Results: spf=pass (sender IP is 192.0.2.25)\r\n smtp.mailfrom=bounces.example.test; ${dkim};\r\n dmarc=pass action=none header.from=example.test;compauth=pass reason=100\r\n`;
  return Buffer.from(verdict + rewritten, 'latin1');
}
