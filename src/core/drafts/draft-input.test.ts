import { describe, expect, it } from 'vitest';
import {
  checkRecipientNames,
  checkSubject,
  checkText,
  formatRecipients,
  parseRecipients,
} from './draft-input.ts';
import { invisibleCount } from '../../lib/shown-text.ts';

describe('draft input', () => {
  it('parses bare and named recipients, commas inside quotes included, and normalises the domain', () => {
    const r = parseRecipients('ana@Example.COM, "Doe, John" <john@x.test>; Zoë <zoe@y.test>');
    expect(r).toEqual({
      ok: true,
      value: [
        { address: 'ana@example.com', name: null },
        { address: 'john@x.test', name: 'Doe, John' },
        { address: 'zoe@y.test', name: 'Zoë' },
      ],
    });
    expect(formatRecipients(r.ok ? r.value : [])).toBe(
      'ana@example.com, "Doe, John" <john@x.test>, "Zoë" <zoe@y.test>',
    );
  });

  it('refuses a name that shows another address than the one the mail goes to; the same address in it is fine', () => {
    for (const to of [
      '"boss@corp.test" <attacker@evil.test>',
      'Boss (boss@corp.test) <attacker@evil.test>',
      'ana@example.com, "Anna anna@corp.test" <x@evil.test>',
    ]) {
      const r = parseRecipients(to);
      expect(checkRecipientNames(r.ok ? r.value : []), to).toMatch(
        /shows the address .* but the mail goes to/,
      );
    }
    const reversed = parseRecipients('"\u202emoc.tset@oec" <someone@elsewhere.test>');
    expect(checkRecipientNames(reversed.ok ? reversed.value : [])).toMatch(/reverse or reorder/);
    for (const to of [
      '"\u05e9\u05dc\u05d5\u05dd\u200f" <shalom@example.test>',
      '"boss@corp.test" <Boss@Corp.test>',
      '"anna@müller.de" <anna@xn--mller-kva.de>',
      '"Anna @ Corp" <anna@corp.test>',
      'plain@corp.test, "Doe, John" <john@x.test>',
    ]) {
      const r = parseRecipients(to);
      expect(r.ok, to).toBe(true);
      expect(checkRecipientNames(r.ok ? r.value : [{ address: '', name: 'x@y.test' }]), to).toBeUndefined();
    }
  });

  it.each([
    'a@b.test\r\nBcc: evil@x.test',
    'a@b.test\nBcc: evil@x.test',
    'a@b.test\rBcc: evil@x.test',
    'a@b.test\u0000',
    '"Name\r\n" <a@b.test>',
    'a@b.test\u0085',
  ])('refuses a line break or control character in To: %j', (to) => {
    const r = parseRecipients(to);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toMatch(/line break or control character/);
  });

  it.each([
    '',
    ' , ',
    'not-an-address',
    'a@b',
    'a@@b.test',
    '<a@b.test',
    'x <a@b.test> y',
    'a b@c.test',
    '"x<y" <a@b.test>',
  ])('refuses %j', (to) => {
    expect(parseRecipients(to).ok).toBe(false);
  });

  it('sends an internationalised domain in its ASCII form', () => {
    expect(parseRecipients('Anna <anna@Müller.de>, info@пример.рф, x@xn--e1afmkfd.xn--p1ai')).toEqual({
      ok: true,
      value: [
        { address: 'anna@xn--mller-kva.de', name: 'Anna' },
        { address: 'info@xn--e1afmkfd.xn--p1ai', name: null },
        { address: 'x@xn--e1afmkfd.xn--p1ai', name: null },
      ],
    });
    expect(parseRecipients('a@bü cher.de').ok).toBe(false);
  });

  it('keeps a local part beyond ASCII in Unicode, composed (NFC), for a send that asks for SMTPUTF8 (0151)', () => {
    expect(
      parseRecipients('Jürgen <ju\u0308rgen@example.com>, 用户@例子.广告, δοκιμή@παράδειγμα.δοκιμή'),
    ).toEqual({
      ok: true,
      value: [
        { address: 'jürgen@example.com', name: 'Jürgen' },
        { address: '用户@xn--fsqu00a.xn--4rr70v', name: null },
        { address: 'δοκιμή@xn--hxajbheg2az3al.xn--jxalpdlp', name: null },
      ],
    });
    // Letters, marks and digits of any script and RFC 5322's marks; not spaces, invisible or look-alike characters.
    for (const bad of [
      'jö rg@x.de',
      'jö\u200brg@x.de',
      'jö\u00a0rg@x.de',
      'jö..rg@x.de',
      '.jörg@x.de',
      'jörg“@x.de',
    ])
      expect(parseRecipients(bad)).toEqual({
        ok: false,
        error: expect.stringContaining('is not a valid email address'),
      });
    // At most 64 octets: 32 two-octet letters are, 33 are not.
    expect(parseRecipients(`${'ö'.repeat(32)}@x.de`).ok).toBe(true);
    expect(parseRecipients(`${'ö'.repeat(33)}@x.de`).ok).toBe(false);
  });

  it('limits recipients and length', () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => `p${String(i)}@x.test`).join(', ');
    expect(parseRecipients(list(50)).ok).toBe(true);
    expect(parseRecipients(list(51))).toEqual({ ok: false, error: 'To has more than 50 recipients.' });
    expect(parseRecipients(`${'a'.repeat(4000)}@x.test`).ok).toBe(false);
  });

  it('checks subject and text', () => {
    expect(checkSubject('Grüße — plain subject')).toBeUndefined();
    expect(checkSubject('Hi\r\nBcc: evil@x.test')).toMatch(/line break/);
    expect(checkSubject('tab\tis fine')).toBeUndefined();
    expect(checkSubject('=?utf-8?b?SGkKQmNjOiBldmlsQHgudGVzdA==?=')).toMatch(/encoded word/);
    expect(checkSubject('Price =? maybe ?=')).toBeUndefined();
    expect(parseRecipients('"=?utf-8?q?A=0ABcc:_x@y.test?=" <a@b.test>')).toEqual({
      ok: false,
      error: 'A name in To is written as a MIME encoded word; write the name itself.',
    });
    expect(checkSubject('x'.repeat(901))).toMatch(/longer/);
    expect(checkText('lines\r\nare fine\n')).toBeUndefined();
    expect(checkText('nul\u0000')).toMatch(/NUL/);
    expect(checkText('x'.repeat(200_001))).toMatch(/longer/);
  });

  // Decision 0112: what the person approving a draft cannot see must not be able to carry a message.
  const tags = (ascii: string) =>
    Array.from(ascii)
      .map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0)))
      .join('');
  const selectors = (bytes: number[]) =>
    bytes.map((b) => String.fromCodePoint(b < 16 ? 0xfe00 + b : 0xe0100 + b - 16)).join('');

  it.each([
    ['tag characters (ASCII smuggled in tags)', `Thanks, see you Thursday.${tags('password=hunter2')}`],
    [
      'a variation-selector run after an emoji (bytes smuggled in selectors)',
      `Great 😀${selectors([104, 105, 33])}`,
    ],
    ['a run of zero-width characters (binary in ZWSP and ZWNJ)', 'Thanks\u200b\u200c\u200b\u200b\u200c.'],
    ['word joiners and invisible operators', 'Hello\u2060\u2061\u2062 there'],
    ['Hangul fillers', 'Hi \u3164\u3164\u3164'],
    ['a lone tag without a flag', 'x\u{e0041}'],
  ])('refuses %s in the text, the subject and a name', (_what, hidden) => {
    expect(checkText(hidden)).toMatch(/no reader sees.*: the person approving the draft could not see/);
    expect(checkSubject(hidden)).toMatch(/^Subject holds .*no reader sees/);
    const to = parseRecipients(`"Ann ${hidden.replace(/[",]/g, '')}" <ann@example.org>`);
    expect(to.ok && checkRecipientNames(to.value)).toMatch(/^The name for ann@example.org holds/);
  });

  it.each([
    [
      'a subdivision flag (tags ended by CANCEL TAG)',
      'Go \u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f} now',
    ],
    [
      'emoji joined by ZWJ, with skin tones',
      'Family \u{1f468}\u200d\u{1f469}\u200d\u{1f467} and \u{1f469}\u{1f3fd}\u200d\u{1f4bb}',
    ],
    [
      'emoji style then a joiner',
      'Love \u2764\ufe0f\u200d\u{1f525} and \u{1f3f3}\ufe0f\u200d\u{1f308} and \u{1f441}\ufe0f\u200d\u{1f5e8}\ufe0f',
    ],
    ['a keycap', 'Press 1\ufe0f\u20e3'],
    ['Persian with ZWNJ', 'می\u200cخواهم بروم و نمی\u200cتوانم'],
    ['German with soft hyphens', 'Donau\u00addampf\u00adschiff\u00adfahrt'],
    ['an ideographic variation selector', '葛\u{e0100}城市'],
    ['Thai with a zero-width space', 'สวัสดี\u200bครับ'],
  ])('keeps %s, and counts what shows nothing in it', (_what, text) => {
    expect(checkText(text)).toBeUndefined();
    expect(checkSubject(text)).toBeUndefined();
    expect(invisibleCount(text)).toBeLessThanOrEqual(3);
    expect(invisibleCount(text) > 0).toBe(/Persian|German|ideographic|Thai/.test(_what));
  });

  it('counts what shows nothing, emoji sequences apart', () => {
    expect(invisibleCount('plain')).toBe(0);
    expect(invisibleCount('\u{1f468}\u200d\u{1f469} \u2764\ufe0f\u200d\u{1f525} 1\ufe0f\u20e3')).toBe(0);
    expect(invisibleCount('\u{1f600}\u{e0101}')).toBe(1);
    expect(invisibleCount('a\u200bb\u200bc\u00add')).toBe(3);
  });
});
