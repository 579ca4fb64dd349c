import { describe, expect, it } from 'vitest';
import { base32, matchingStep, newTotpSecret, otpauthUri, totpCode, totpStep, unbase32 } from './totp.ts';

// RFC 6238 Appendix B: the SHA-1 seed "12345678901234567890", eight digits.
const RFC_SECRET = base32(Buffer.from('12345678901234567890', 'ascii'));
const RFC_VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(RFC_VECTORS)('gives the RFC’s code at %i s', (seconds, code) => {
    expect(totpCode(RFC_SECRET, totpStep(new Date(seconds * 1000)), 8)).toBe(code);
    expect(totpCode(RFC_SECRET, totpStep(new Date(seconds * 1000)))).toBe(code.slice(2));
  });

  it('base 32 round-trips (RFC 4648 vectors), whatever the case, spaces and padding', () => {
    expect(base32(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32(Buffer.from('fooba'))).toBe('MZXW6YTB');
    expect(unbase32('mzxw 6ytb oi======').toString()).toBe('foobar');
    expect(() => unbase32('MZXW1')).toThrow();
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(unbase32(secret)).toHaveLength(20);
  });

  it('matches the step of the moment and one either side, no further, and only six digits', () => {
    const at = new Date(1_800_000_000_000);
    const now = totpStep(at);
    for (const step of [now - 1, now, now + 1])
      expect(matchingStep(RFC_SECRET, totpCode(RFC_SECRET, step), at)).toBe(step);
    expect(matchingStep(RFC_SECRET, totpCode(RFC_SECRET, now - 2), at)).toBeUndefined();
    expect(matchingStep(RFC_SECRET, totpCode(RFC_SECRET, now + 2), at)).toBeUndefined();
    const code = totpCode(RFC_SECRET, now);
    expect(matchingStep(RFC_SECRET, `${code.slice(0, 3)} ${code.slice(3)}`, at)).toBe(now);
    for (const bad of ['', '12345', '1234567', 'abcdef', `${code}0`])
      expect(matchingStep(RFC_SECRET, bad, at)).toBeUndefined();
  });

  it('writes the link authenticator apps read', () => {
    expect(otpauthUri('ABC', 'Inbox Triage', 'ann@example.test')).toBe(
      'otpauth://totp/Inbox%20Triage%3Aann%40example.test?secret=ABC&issuer=Inbox+Triage&algorithm=SHA1&digits=6&period=30',
    );
  });
});
