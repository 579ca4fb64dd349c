import { describe, expect, it } from 'vitest';
import { newId, randomToken } from './random.ts';

describe('randomToken', () => {
  it('has the asked length over [a-z0-9], across many refills of the byte pool', () => {
    const seen = new Set<string>();
    const counts = new Map<string, number>();
    for (let i = 0; i < 5000; i++) {
      const t = randomToken(20);
      expect(t).toMatch(/^[a-z0-9]{20}$/);
      seen.add(t);
      for (const c of t) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(seen.size).toBe(5000);
    // 100,000 characters over 36 symbols: each near 2,778; a biased or stuck source would stray far.
    expect(counts.size).toBe(36);
    for (const n of counts.values()) expect(Math.abs(n - 100_000 / 36)).toBeLessThan(400);
    expect(randomToken(0)).toBe('');
    expect(randomToken(5000)).toHaveLength(5000);
  });

  it('prefixes ids', () => {
    expect(newId('msg')).toMatch(/^msg_[a-z0-9]{20}$/);
  });
});
