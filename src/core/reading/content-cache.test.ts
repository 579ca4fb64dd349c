import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../lib/clock.ts';
import { ContentCache } from './content-cache.ts';

const cacheWith = (o: { maxEntries?: number; maxWeight?: number } = {}) => {
  const clock = fixedClock(new Date('2026-11-27T00:00:00Z'));
  const cache = new ContentCache<string>({
    clock,
    ttlMs: 60_000,
    maxEntries: o.maxEntries ?? 3,
    maxWeight: o.maxWeight ?? 100,
  });
  return { clock, cache };
};

describe('ContentCache', () => {
  it('keeps an entry until its time is up, and not a moment longer', () => {
    const { clock, cache } = cacheWith();
    cache.set('a', 'A', 1);
    clock.advance(59_999);
    expect(cache.get('a')).toBe('A');
    clock.advance(1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size()).toEqual({ entries: 0, weight: 0 });
  });

  it('drops the least recently used entry beyond its entry count', () => {
    const { cache } = cacheWith({ maxEntries: 2 });
    cache.set('a', 'A', 1);
    cache.set('b', 'B', 1);
    expect(cache.get('a')).toBe('A'); // now b is the least recently used
    cache.set('c', 'C', 1);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c')]).toEqual(['A', 'C']);
  });

  it('drops the oldest entries until the weights fit; an entry heavier than the whole budget is not kept', () => {
    const { cache } = cacheWith({ maxEntries: 10, maxWeight: 100 });
    cache.set('a', 'A', 40);
    cache.set('b', 'B', 40);
    cache.set('c', 'C', 40);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size()).toEqual({ entries: 2, weight: 80 });
    cache.set('huge', 'H', 101);
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.size()).toEqual({ entries: 2, weight: 80 });
  });

  it('replacing a key counts its weight once; clear empties it', () => {
    const { cache } = cacheWith();
    cache.set('a', 'A', 30);
    cache.set('a', 'A2', 50);
    expect(cache.get('a')).toBe('A2');
    expect(cache.size()).toEqual({ entries: 1, weight: 50 });
    cache.clear();
    expect(cache.size()).toEqual({ entries: 0, weight: 0 });
  });

  it('expired entries go even when nobody asks for them', async () => {
    const clock = fixedClock(new Date('2026-11-27T00:00:00Z'));
    const cache = new ContentCache<string>({ clock, ttlMs: 20, maxEntries: 3, maxWeight: 100 });
    cache.set('a', 'A', 5);
    clock.advance(20);
    await new Promise((r) => setTimeout(r, 60));
    expect(cache.size()).toEqual({ entries: 0, weight: 0 });
  });
});
