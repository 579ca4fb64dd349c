import { err, ok, type Result } from '../../lib/result.ts';
import { BIDI_CONTROL, hiddenCarrier, invisibleCount } from '../../lib/shown-text.ts';
import { domainKey, otherAddressShown } from '../messages/address-key.ts';

export const DRAFT_LIMITS = {
  senderNameChars: 100,
  toChars: 4000,
  recipients: 50,
  subjectChars: 900,
  textChars: 200_000,
} as const;

/** One recipient: the address, and the display name if one was written. */
export interface Recipient {
  readonly address: string;
  readonly name: string | null;
}

/** An ASCII local part. */
const ASCII_LOCAL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$/;
/** A domain in ASCII; an internationalised one in its ASCII form (`xn--…`), its top-level domain too. */
const DOMAIN =
  /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;
/**
 * A local part beyond ASCII (RFC 6531): dot-separated runs of RFC 5322's atext and letters, marks and digits of any
 * script — not the spaces, format characters and symbols RFC 6531 would also let through, which only hide or
 * imitate. At most 64 octets in UTF-8 (RFC 5321 §4.5.3.1.1).
 */
const UTF8_LOCAL = /^[\p{L}\p{M}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{M}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;
const ASCII = /^[\x00-\x7f]*$/;
// C0 controls except TAB, DEL and C1 controls: never valid in a header, and CR/LF would start a new one.
const HEADER_FORBIDDEN = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;

// RFC 2047 encoded-word syntax. Written literally it would be decoded by every reader — into a line break, say — so
// a header value that already looks encoded is refused: the composer encodes real text itself.
const ENCODED_WORD = /=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=/;

/** An address whose domain is in ASCII form; its local part ASCII or, beyond it, as UTF8_LOCAL allows. */
export function isEmailAddress(s: string): boolean {
  const at = s.lastIndexOf('@');
  const local = s.slice(0, at);
  return at > 0 && DOMAIN.test(s.slice(at + 1)) && (ASCII_LOCAL.test(local) || isUtf8Local(local));
}

function isUtf8Local(local: string): boolean {
  return UTF8_LOCAL.test(local) && new TextEncoder().encode(local).length <= 64;
}

/**
 * `Name <address>` taken apart: the address inside the last `<…>` ending the part, the name before it without its
 * trailing space; undefined when the part is not so written. What `/^(.*?)\s*<([^<>]+)>$/` matched, in time linear in
 * the part's length: that pattern tried every split of a run of spaces between name and bracket (decision 0158).
 */
function nameAndAngleAddress(part: string): { name: string; address: string } | undefined {
  const lt = part.lastIndexOf('<');
  if (lt < 0 || !part.endsWith('>')) return undefined;
  const address = part.slice(lt + 1, -1);
  const name = part.slice(0, lt).trimEnd();
  if (address === '' || address.includes('>') || /[\n\r\u2028\u2029]/.test(name)) return undefined;
  return { name, address };
}

/**
 * Parses a To field: addresses separated by commas, each bare or as `Name <address>`. A line break, NUL or other
 * control character anywhere is refused outright — that is how hidden headers (a Bcc) get injected.
 */
export function parseRecipients(to: string): Result<Recipient[], string> {
  if (HEADER_FORBIDDEN.test(to)) return err('To contains a line break or control character.');
  if (to.length > DRAFT_LIMITS.toChars)
    return err(`To is longer than ${String(DRAFT_LIMITS.toChars)} characters.`);
  const parts = splitOutsideQuotes(to)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) return err('To has no recipient.');
  if (parts.length > DRAFT_LIMITS.recipients)
    return err(`To has more than ${String(DRAFT_LIMITS.recipients)} recipients.`);
  const out: Recipient[] = [];
  for (const part of parts) {
    const angle = nameAndAngleAddress(part);
    const written = (angle?.address ?? part).trim();
    // An internationalised domain is sent in its ASCII form, which every mail server takes (anna@müller.de goes to
    // anna@xn--mller-kva.de). A local part beyond ASCII (jörg@…, 用户@…) is kept in Unicode (NFC): it needs SMTPUTF8
    // (RFC 6531), which the send asks the mail server for (decision 0151).
    const at = written.lastIndexOf('@');
    const local = at < 0 ? written : written.slice(0, at).normalize('NFC');
    const utf8Local = at > 0 && !ASCII.test(local);
    if (utf8Local && !isUtf8Local(local)) return err(`“${truncate(written)}” is not a valid email address.`);
    const address = at > 0 && !ASCII.test(written) ? `${local}@${domainKey(written.slice(at + 1))}` : written;
    const rawName = angle?.name.trim() ?? '';
    const name = rawName
      .replace(/^"(.*)"$/, '$1')
      .replace(/\\(.)/g, '$1')
      .trim();
    if (!isEmailAddress(address)) return err(`“${truncate(address)}” is not a valid email address.`);
    if (/[<>]/.test(name)) return err(`The name “${truncate(name)}” contains < or >.`);
    if (ENCODED_WORD.test(name))
      return err('A name in To is written as a MIME encoded word; write the name itself.');
    const domainAt = address.lastIndexOf('@');
    out.push({
      address: address.slice(0, domainAt) + address.slice(domainAt).toLowerCase(),
      name: name === '' ? null : name,
    });
  }
  return ok(out);
}

/**
 * A name that shows another address than its own — `"boss@corp.test" <someone@elsewhere.test>` — is refused in a new
 * draft: the person approving it, and whoever receives it, read the name. (Delivery and comparisons still parse
 * an older draft's To as it is.)
 */
export function checkRecipientNames(list: readonly Recipient[]): string | undefined {
  for (const { name, address } of list) {
    // Shown right to left, `\u202emoc.tset@oec` reads as ceo@test.com: no name needs to reorder what follows it.
    if (name !== null && BIDI_CONTROL.test(name))
      return `The name for ${truncate(address)} contains characters that reverse or reorder the text shown after them; write the name without them.`;
    const hidden = name === null ? undefined : hiddenCarrier(name);
    if (hidden !== undefined) return unseen(`The name for ${truncate(address)}`, hidden);
    const posing = otherAddressShown(name, address);
    if (posing !== undefined)
      return `The name “${truncate(name ?? '')}” shows the address ${truncate(posing)}, but the mail goes to ${truncate(address)}; write the person’s name, or leave the name out.`;
  }
  return undefined;
}

export function checkSubject(subject: string): string | undefined {
  if (HEADER_FORBIDDEN.test(subject)) return 'Subject contains a line break or control character.';
  if (ENCODED_WORD.test(subject)) return 'Subject is written as a MIME encoded word; write the text itself.';
  const hidden = hiddenCarrier(subject);
  if (hidden !== undefined) return unseen('Subject', hidden);
  if (subject.length > DRAFT_LIMITS.subjectChars)
    return `Subject is longer than ${String(DRAFT_LIMITS.subjectChars)} characters.`;
  return undefined;
}

/**
 * The person's name on the mail they send (decision 0088), trimmed; empty for none. Refused as a To name is: a line
 * break or control character, < or >, a MIME encoded word; and past 100 characters.
 */
export function checkSenderName(raw: string): Result<string, string> {
  const name = raw.normalize('NFC').trim();
  if (HEADER_FORBIDDEN.test(name) || /[\u2028\u2029]/.test(name))
    return err('The name contains a line break or control character.');
  if (/[<>]/.test(name)) return err('The name contains < or >.');
  if (ENCODED_WORD.test(name))
    return err('The name is written as a MIME encoded word; write the name itself.');
  if (name.length > DRAFT_LIMITS.senderNameChars)
    return err(`The name is longer than ${String(DRAFT_LIMITS.senderNameChars)} characters.`);
  return ok(name);
}

/** Refusal words for text that carries what nobody approving it can see (decision 0112). */
function unseen(what: string, hidden: string): string {
  return `${what} holds ${hidden}: the person approving the draft could not see what they carry. Write it without them.`;
}

export function checkText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'The text contains a NUL character.';
  const hidden = hiddenCarrier(text);
  if (hidden !== undefined) return unseen('The text', hidden);
  if (text.length > DRAFT_LIMITS.textChars)
    return `The text is longer than ${String(DRAFT_LIMITS.textChars)} characters.`;
  return undefined;
}

/**
 * Whether two To fields name the same addresses, whatever the case, order, repeats and display names: what a person
 * confirming a draft's recipients means by "the same". Two fields that do not parse compare equal only to each other.
 */
export function sameRecipients(a: string, b: string): boolean {
  const set = (to: string) => {
    const r = parseRecipients(to);
    return r.ok ? [...new Set(r.value.map((x) => x.address.toLowerCase()))].sort().join(',') : '\u0000';
  };
  return set(a) === set(b);
}

/** The recipients as one normalised header value. */
export function formatRecipients(list: readonly Recipient[]): string {
  return list
    .map((r) => (r.name === null ? r.address : `"${r.name.replace(/(["\\])/g, '\\$1')}" <${r.address}>`))
    .join(', ');
}

function splitOutsideQuotes(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charAt(i);
    if (c === '\\' && quoted) {
      cur += c + s.charAt(i + 1);
      i++;
    } else if (c === '"') {
      quoted = !quoted;
      cur += c;
    } else if ((c === ',' || c === ';') && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

const truncate = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}…` : s);

/**
 * Words for the person approving a draft whose To, Subject or text holds characters that show nothing, one at a time
 * (runs and tags are refused), or undefined (decision 0112).
 */
export function unseenNotice(draft: {
  readonly to: string;
  readonly subject: string;
  readonly body: string;
}) {
  const n = invisibleCount(draft.to) + invisibleCount(draft.subject) + invisibleCount(draft.body);
  if (n === 0) return undefined;
  const one = n === 1;
  return `This draft holds ${String(n)} ${one ? 'character' : 'characters'} that ${one ? 'shows' : 'show'} nothing (zero-width spaces, joiners, soft hyphens). Some languages and emoji need them; if you did not expect ${one ? 'it' : 'them'}, do not send it.`;
}
