import type { Provider } from './inbox.ts';

export interface ProviderGuess {
  readonly provider: Provider;
  readonly imapHost: string | null;
  readonly imapPort: number | null;
}

const GOOGLE = new Set(['gmail.com', 'googlemail.com']);
const MICROSOFT = /^(outlook|hotmail|live|msn|passport)\.[a-z.]+$/;
const ICLOUD = new Set(['icloud.com', 'me.com', 'mac.com']);

/**
 * The provider behind an address, from its domain (contract §4.5, proposing a connection). Custom domains cannot be
 * told apart without DNS, so they are IMAP with the conventional host as a suggestion the person confirms.
 */
export function detectProvider(email: string): ProviderGuess {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  if (GOOGLE.has(domain)) return { provider: 'google', imapHost: null, imapPort: null };
  if (MICROSOFT.test(domain)) return { provider: 'microsoft', imapHost: null, imapPort: null };
  if (ICLOUD.has(domain))
    return { provider: 'icloud', imapHost: ICLOUD_IMAP.host, imapPort: ICLOUD_IMAP.port };
  return { provider: 'imap', imapHost: `imap.${domain}`, imapPort: 993 };
}

/** iCloud Mail: IMAP with implicit TLS and an app-specific password (support.apple.com HT204397). */
export const ICLOUD_IMAP = { host: 'imap.mail.me.com', port: 993 } as const;

/** iCloud Mail submission: STARTTLS on 587 with the same app-specific password. */
export const ICLOUD_SMTP = { host: 'smtp.mail.me.com', port: 587 } as const;

/** The conventional submission host next to an IMAP host: `imap.example.com` → `smtp.example.com`. */
export function defaultSmtpHost(imapHost: string): string {
  return imapHost.startsWith('imap.') ? `smtp.${imapHost.slice(5)}` : imapHost;
}

const HOSTNAME =
  /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export function isValidHostname(host: string): boolean {
  return HOSTNAME.test(host) || /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
}
