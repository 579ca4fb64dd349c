import { describe, expect, it } from 'vitest';
import { addressKey, domainKey } from './address-key.ts';

describe('the form the sender rules compare', () => {
  it('an internationalised domain in either spelling, any case, is one key', () => {
    expect(domainKey('müller.de')).toBe('xn--mller-kva.de');
    expect(domainKey('MÜLLER.DE.')).toBe('xn--mller-kva.de');
    expect(domainKey('xn--mller-kva.de')).toBe('xn--mller-kva.de');
    expect(domainKey('пример.рф')).toBe('xn--e1afmkfd.xn--p1ai');
    expect(addressKey(' Anna@Müller.de ')).toBe('anna@xn--mller-kva.de');
    expect(addressKey('anna@XN--MLLER-KVA.DE')).toBe('anna@xn--mller-kva.de');
  });

  it('the local part is only lower-cased: it is the mail server’s to read', () => {
    expect(addressKey('Jürgen@example.com')).toBe('jürgen@example.com');
  });

  it('ASCII, and what is no host name, are compared as written (lower case)', () => {
    expect(domainKey('Example.COM')).toBe('example.com');
    expect(domainKey('bücher/evil.example')).toBe('bücher/evil.example');
    expect(domainKey('a b.example')).toBe('a b.example');
    expect(addressKey('no-at-sign')).toBe('no-at-sign');
    // A label no IDNA mapping accepts: the parser refuses it, and it matches only itself.
    expect(domainKey('\u0378.example')).toBe('\u0378.example');
  });
});
