import { describe, expect, it } from 'vitest';
import { derivedSecret, newSecret } from './secret-token.ts';

describe('derivedSecret', () => {
  const key = new Uint8Array(32).fill(7);

  it('is shaped like a random secret of the same length', () => {
    expect(derivedSecret('itr_', key, 'itr_abc')).toMatch(/^itr_[0-9a-z]{43}$/);
    expect(newSecret('itr_', 43)).toMatch(/^itr_[0-9a-z]{43}$/);
    expect(derivedSecret('x_', key, '', 10)).toMatch(/^x_[0-9a-z]{10}$/);
    expect(() => derivedSecret('x_', key, 'a', 44)).toThrow(RangeError);
  });

  it('is the same for the same text and key, and differs with either', () => {
    const once = derivedSecret('ita_', key, 'refresh\0itr_abc');
    expect(derivedSecret('ita_', key, 'refresh\0itr_abc')).toBe(once);
    expect(derivedSecret('ita_', key, 'refresh\0itr_abd')).not.toBe(once);
    expect(derivedSecret('ita_', new Uint8Array(32).fill(8), 'refresh\0itr_abc')).not.toBe(once);
  });

  it('spreads over the alphabet: no character is rare or common across 2,000 secrets', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++)
      for (const c of derivedSecret('', key, String(i))) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(36);
    const expected = (2000 * 43) / 36; // ~2,389 each
    for (const n of counts.values()) expect(Math.abs(n - expected)).toBeLessThan(expected * 0.15);
  });
});
