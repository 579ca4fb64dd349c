import { describe, expect, it } from 'vitest';
import {
  checkRecipientNames,
  checkSubject,
  checkText,
  formatRecipients,
  parseRecipients,
} from './draft-input.ts';

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

  it('sends an internationalised domain in its ASCII form, and refuses a local part beyond ASCII in words', () => {
    expect(parseRecipients('Anna <anna@Müller.de>, info@пример.рф, x@xn--e1afmkfd.xn--p1ai')).toEqual({
      ok: true,
      value: [
        { address: 'anna@xn--mller-kva.de', name: 'Anna' },
        { address: 'info@xn--e1afmkfd.xn--p1ai', name: null },
        { address: 'x@xn--e1afmkfd.xn--p1ai', name: null },
      ],
    });
    const refused = parseRecipients('jürgen@example.com');
    expect(refused.ok ? '' : refused.error).toMatch(/beyond ASCII before the @.*SMTPUTF8/);
    expect(parseRecipients('a@bü cher.de').ok).toBe(false);
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
});
