import { domainKey } from '../messages/address-key.ts';
import type { Provider } from './inbox.ts';

export interface ProviderGuess {
  readonly provider: Provider;
  readonly imapHost: string | null;
  readonly imapPort: number | null;
  /** Who handles a custom domain's mail, when its MX records say so ("Google Workspace"); null otherwise. */
  readonly hostedBy: string | null;
}

/** The hosts a domain's mail is delivered to (its MX records), most preferred first; none when DNS gives none. */
export interface MailExchangeLookup {
  exchangesOf(domain: string): Promise<readonly string[]>;
}

const GOOGLE = new Set(['gmail.com', 'googlemail.com']);
/**
 * Outlook.com's own domains (outlook.com, hotmail.co.uk, live.fr, live.com.au, msn.com…): the name and a top-level
 * domain, as for Yahoo — not any domain under such a name (`live.example.edu` is a school's, its MX records tell).
 */
export const MICROSOFT_MAIL_DOMAIN =
  /^(outlook|hotmail|live|msn|passport|windowslive)\.(com|net|[a-z]{2}|co\.[a-z]{2}|com\.[a-z]{2})$/;
const ICLOUD = new Set(['icloud.com', 'me.com', 'mac.com']);
/**
 * Yahoo Mail's own domains (yahoo.com, yahoo.co.uk, yahoo.fr…, ymail.com, rocketmail.com), read at
 * imap.mail.yahoo.com and sent through smtp.mail.yahoo.com with an app password, not at the conventional
 * imap.<domain>. Yahoo Japan is a separate service.
 */
export const YAHOO_MAIL_DOMAIN = /^(yahoo\.(com|[a-z]{2}|co\.(?!jp$)[a-z]{2}|com\.[a-z]{2})|ymail\.com|rocketmail\.com)$/;
const YAHOO_IMAP_HOST = 'imap.mail.yahoo.com';

/**
 * The provider behind an address, from its domain (contract §4.5, proposing a connection). Custom domains cannot be
 * told apart without DNS, so they are IMAP with the conventional host as a suggestion the person confirms.
 */
export function detectProvider(email: string): ProviderGuess {
  const domain = domainKey(email.slice(email.lastIndexOf('@') + 1));
  if (GOOGLE.has(domain)) return { provider: 'google', imapHost: null, imapPort: null, hostedBy: null };
  if (MICROSOFT_MAIL_DOMAIN.test(domain))
    return { provider: 'microsoft', imapHost: null, imapPort: null, hostedBy: null };
  if (ICLOUD.has(domain))
    return { provider: 'icloud', imapHost: ICLOUD_IMAP.host, imapPort: ICLOUD_IMAP.port, hostedBy: null };
  if (YAHOO_MAIL_DOMAIN.test(domain))
    return { provider: 'imap', imapHost: YAHOO_IMAP_HOST, imapPort: 993, hostedBy: null };
  return { provider: 'imap', imapHost: `imap.${domain}`, imapPort: 993, hostedBy: null };
}

/**
 * Mail services recognised by where a custom domain's MX records point, as each documents them for its customers;
 * the IMAP host where the service names one for a custom domain. A domain whose mail passes a filtering service
 * first (its only MX records) is not recognised, and keeps the conventional guess.
 */
const MAIL_SERVICES: readonly {
  readonly mx: RegExp;
  readonly hostedBy: string;
  readonly provider: Provider;
  readonly imapHost: (m: RegExpExecArray) => string | null;
}[] = [
  // aspmx.l.google.com, alt1.aspmx.l.google.com, aspmx2.googlemail.com, and smtp.google.com since 2023.
  { mx: /(^|\.)google(mail)?\.com$/, hostedBy: 'Google Workspace', provider: 'google', imapHost: () => null },
  // <tenant>.mail.protection.outlook.com, and <domain>.<x>-v1.mx.microsoft since 2024.
  {
    mx: /\.mail\.protection\.outlook\.com$|\.mx\.microsoft$/,
    hostedBy: 'Microsoft 365',
    provider: 'microsoft',
    imapHost: () => null,
  },
  // mx01.mail.icloud.com: a custom email domain on iCloud+.
  { mx: /\.mail\.icloud\.com$/, hostedBy: 'iCloud+', provider: 'icloud', imapHost: () => ICLOUD_IMAP.host },
  {
    mx: /\.messagingengine\.com$/,
    hostedBy: 'Fastmail',
    provider: 'imap',
    imapHost: () => 'imap.fastmail.com',
  },
  // mx.zoho.eu, mx2.zoho.com …: an organisation's mail, read at imappro.zoho.<region>.
  {
    mx: /^mx\d*\.zoho\.(com|eu|in|com\.au)$/,
    hostedBy: 'Zoho Mail',
    provider: 'imap',
    imapHost: (m) => `imappro.zoho.${m[1] ?? 'com'}`,
  },
  // Namecheap's Private Email: mx1.privateemail.com.
  {
    mx: /(^|\.)privateemail\.com$/,
    hostedBy: 'Namecheap Private Email',
    provider: 'imap',
    imapHost: () => 'mail.privateemail.com',
  },
];

/** The provider a custom domain's mail service implies, from its MX hosts (most preferred first); undefined if none known. */
export function providerFromMailExchanges(exchanges: readonly string[]): ProviderGuess | undefined {
  for (const host of exchanges) {
    const name = host.toLowerCase().replace(/\.$/, '');
    for (const s of MAIL_SERVICES) {
      const m = s.mx.exec(name);
      if (m === null) continue;
      const imapHost = s.imapHost(m);
      return {
        provider: s.provider,
        imapHost,
        imapPort: imapHost === null ? null : 993,
        hostedBy: s.hostedBy,
      };
    }
  }
  return undefined;
}

/** iCloud Mail: IMAP with implicit TLS and an app-specific password (support.apple.com HT204397). */
export const ICLOUD_IMAP = { host: 'imap.mail.me.com', port: 993 } as const;

/**
 * The user name a submission server takes for a login the person gave. iCloud's IMAP server takes the name part of
 * the address alone (Apple advises it: "emilyparker", not "emilyparker@icloud.com"); its submission server only the
 * full address. Elsewhere the login is the same for both.
 */
export function submissionUser(provider: Provider, user: string): string {
  return provider === 'icloud' && !user.includes('@') ? `${user}@icloud.com` : user;
}

/** iCloud Mail submission: STARTTLS on 587 with the same app-specific password. */
export const ICLOUD_SMTP = { host: 'smtp.mail.me.com', port: 587 } as const;

/**
 * The conventional submission host next to an IMAP host: `imap.example.com` → `smtp.example.com`, and the twins
 * services name so — Zoho's organisation hosts (`imappro.zoho.eu` → `smtppro.zoho.eu`), Outlook.com's
 * (`imap-mail.outlook.com` → `smtp-mail.outlook.com`); any other host is its own (`mail.example.com`). A guess the
 * password page tests and the owner can change (decision 0095).
 */
export function defaultSmtpHost(imapHost: string): string {
  const m = /^imap(pro|-mail)?\./.exec(imapHost);
  return m === null ? imapHost : `smtp${m[1] ?? ''}.${imapHost.slice(m[0].length)}`;
}

const HOSTNAME =
  /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export function isValidHostname(host: string): boolean {
  return HOSTNAME.test(host) || /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
}
