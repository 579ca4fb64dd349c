import { generateKeyPairSync, type KeyObject } from 'node:crypto';

/**
 * The demo inbox's list mail is DKIM-signed on the fly with a key made in this process, so the real one-click
 * checks run on it unchanged. Only a verifier told the message is the demo's trusts this key: nothing outside
 * the process can sign with it, and a real mailbox's message is never checked against it.
 */
export const DEMO_DKIM_SELECTOR = 'inbox-triage-demo';

let pair: { privateKey: KeyObject; publicKey: KeyObject } | undefined;

function keys() {
  pair ??= generateKeyPairSync('rsa', { modulusLength: 2048 });
  return pair;
}

export const demoDkimPrivateKeyPem = (): string =>
  keys().privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** The TXT record a DNS server would publish for the demo selector (RFC 6376 §3.6.1). */
export const demoDkimRecord = (): string =>
  `v=DKIM1; k=rsa; p=${keys().publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
