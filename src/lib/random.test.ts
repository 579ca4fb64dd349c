import { describe, expect, it } from 'vitest';
import { newId, newTimeOrderedId, randomToken } from './random.ts';

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

  it('time-ordered ids: the shape of newId, later ones sort later, unique within a millisecond', () => {
    const at = Date.UTC(2026, 10, 27, 12);
    const ids = Array.from({ length: 2000 }, () => newTimeOrderedId('msg', at));
    for (const id of ids) expect(id).toMatch(/^msg_[a-z0-9]{20}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const later = newTimeOrderedId('msg', at + 1);
    for (const id of ids) expect(id < later).toBe(true);
    // Fixed width from the epoch to the year 5138, so string order is time order.
    expect(newTimeOrderedId('msg', 0) < newTimeOrderedId('msg', 1000)).toBe(true);
    expect(newTimeOrderedId('msg', Date.UTC(5000, 0, 1)) > newTimeOrderedId('msg', at)).toBe(true);
  });
});
