import { addressKey, domainKey } from '../messages/address-key.ts';
import { MICROSOFT_MAIL_DOMAIN, YAHOO_MAIL_DOMAIN } from '../inboxes/provider-detection.ts';
import type { TriagePrefs } from '../profile/triage-profile.ts';

/**
 * Big free-mail and consumer domains: blocking one would block millions of strangers and every friend who uses
 * it, so a report of such a sender blocks the address instead. Lower case; subdomains are not listed (they are
 * not where people's addresses live). The families with a domain in many countries are patterns below.
 */
export const FREE_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.co.jp',
  'icloud.com',
  'me.com',
  'mac.com',
  'proton.me',
  'protonmail.com',
  'pm.me',
  'web.de',
  'freenet.de',
  't-online.de',
  'posteo.de',
  'mailbox.org',
  'mail.com',
  'ya.ru',
  'rambler.ru',
  'ukr.net',
  'zoho.com',
  'zohomail.com',
  'fastmail.com',
  'hey.com',
  'tutanota.com',
  'tutanota.de',
  'tuta.com',
  'tuta.io',
  'seznam.cz',
  'wp.pl',
  'o2.pl',
  'interia.pl',
  'onet.pl',
  'abv.bg',
  'bluewin.ch',
  'orange.fr',
  'wanadoo.fr',
  'free.fr',
  'sfr.fr',
  'laposte.net',
  'libero.it',
  'virgilio.it',
  'alice.it',
  'tiscali.it',
  'btinternet.com',
  'sky.com',
  'virginmedia.com',
  'uol.com.br',
  'bol.com.br',
  'terra.com.br',
  'rediffmail.com',
  'qq.com',
  'foxmail.com',
  '163.com',
  '126.com',
  'yeah.net',
  '139.com',
  'sina.com',
  'sohu.com',
  'naver.com',
  'hanmail.net',
  'daum.net',
  'comcast.net',
  'verizon.net',
  'att.net',
  'sbcglobal.net',
  'bellsouth.net',
  'cox.net',
  'charter.net',
  'earthlink.net',
  'optonline.net',
  'shaw.ca',
  'rogers.com',
  'sympatico.ca',
  'bigpond.com',
  'optusnet.com.au',
  'xtra.co.nz',
]);

/**
 * Free-mail families under one name in many countries: Outlook.com's and Yahoo's (as provider detection knows them),
 * GMX, AOL, Yandex, Mail.ru.
 */
const FREE_MAIL_FAMILIES: readonly RegExp[] = [
  MICROSOFT_MAIL_DOMAIN,
  YAHOO_MAIL_DOMAIN,
  /^(gmx|aol)\.(com|net|[a-z]{2}|co\.uk)$/,
  /^yandex\.(com|ru|ua|by|kz|com\.tr)$/,
  /^(mail|inbox|list|bk|internet)\.ru$/,
];

/** Whether a domain (lower case, ASCII) is a big free-mail one (FREE_MAIL_DOMAINS and its families). */
export function isFreeMailDomain(domain: string): boolean {
  return FREE_MAIL_DOMAINS.has(domain) || FREE_MAIL_FAMILIES.some((f) => f.test(domain));
}

/** The domain of an address, in the form the rules compare (domainKey). */
export function domainOf(address: string): string {
  const a = addressKey(address);
  return a.slice(a.lastIndexOf('@') + 1);
}

/** `domain` is `parent` or one of its subdomains. */
export function withinDomain(domain: string, parent: string): boolean {
  return domain === parent || domain.endsWith(`.${parent}`);
}

/** A list of addresses by addressKey, built once per list the profile holds (a list may hold 5,000). */
const keyed = new WeakMap<readonly string[], ReadonlySet<string>>();
function keysOf(list: readonly string[]): ReadonlySet<string> {
  let keys = keyed.get(list);
  if (keys === undefined) {
    keys = new Set(list.map(addressKey));
    keyed.set(list, keys);
  }
  return keys;
}

/** The blocklist entry that covers the sender — its address, or its domain or a parent of it — in the profile's terms. */
export function blockingEntry(address: string, junk: TriagePrefs['junk']): string | undefined {
  const a = addressKey(address);
  if (keysOf(junk.blockedSenders).has(a)) return `blockedSenders: ${a}`;
  const domain = domainOf(a);
  const rule = junk.blockedDomains.find((d) => withinDomain(domain, domainKey(d)));
  return rule === undefined ? undefined : `blockedDomains: ${rule}`;
}

/** The sender is on the person's blocklist: its address, or its domain or a parent domain of it. */
export function isBlocked(address: string, junk: TriagePrefs['junk']): boolean {
  return blockingEntry(address, junk) !== undefined;
}

export function isKnownGood(address: string, junk: TriagePrefs['junk']): boolean {
  return keysOf(junk.knownGoodSenders).has(addressKey(address));
}

/** Why a report blocks the sender's address rather than its whole domain. */
export type AddressOnlyReason = 'free_mail' | 'vip_domain' | 'own_domain' | 'known_good_domain';

export type BlockTarget =
  | { readonly kind: 'domain'; readonly value: string }
  | { readonly kind: 'address'; readonly value: string; readonly because: AddressOnlyReason };

/**
 * What reporting this sender blocks: its domain, unless the domain is a big free-mail one, holds a VIP (an
 * address at it, the domain itself or a parent), is the person's own, or holds a sender the person marked good.
 */
export function blockTarget(
  address: string,
  context: {
    readonly vipEntries: readonly string[];
    readonly ownAddresses: readonly string[];
    readonly knownGood: readonly string[];
  },
): BlockTarget {
  const a = addressKey(address);
  const domain = domainOf(a);
  const only = (because: AddressOnlyReason): BlockTarget => ({ kind: 'address', value: a, because });
  if (isFreeMailDomain(domain)) return only('free_mail');
  const touches = (entry: string) => {
    const d = entry.includes('@') ? domainOf(entry) : domainKey(entry);
    return withinDomain(d, domain) || withinDomain(domain, d);
  };
  if (context.vipEntries.some(touches)) return only('vip_domain');
  if (context.ownAddresses.some(touches)) return only('own_domain');
  if (context.knownGood.some(touches)) return only('known_good_domain');
  return { kind: 'domain', value: domain };
}
