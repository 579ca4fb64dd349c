import { describe, expect, it } from 'vitest';
import { holdsNul, nulAt, urlHoldsNul } from './nul.ts';

describe('NUL in input', () => {
  it('finds it in strings, in nested values and in keys, and says where', () => {
    expect(holdsNul('a\u0000b')).toBe(true);
    expect(holdsNul('a\\u0000b')).toBe(false); // a backslash, then "u0000": text, not NUL
    expect(nulAt({ inboxId: 'x', items: [{ q: 'ok' }, { q: 'b\u0000' }] })).toBe('items.1.q');
    expect(nulAt({ ['k\u0000']: 1 })).toBe('k\u0000');
    expect(nulAt('\u0000')).toBe('');
    expect(nulAt({ a: 1, b: [true, null, 'fine'] })).toBeUndefined();
  });

  it('finds it in a URL as sent, percent-encoded', () => {
    expect(urlHoldsNul('/inboxes/%00/remove')).toBe(true);
    expect(urlHoldsNul('/oauth/authorize?client_id=a%00b')).toBe(true);
    expect(urlHoldsNul('/oauth/authorize?client_id=a%2500b')).toBe(false); // "%00" as text, encoded
    expect(urlHoldsNul('/settings?x=1')).toBe(false);
  });
});

describe('NUL in deeply nested input', () => {
  it('walks ten thousand levels without overflowing the stack, and still says where', () => {
    const depth = 10_000;
    const deep: unknown = JSON.parse(`${'{"a":'.repeat(depth)}"x\\u0000"${'}'.repeat(depth)}`);
    expect(nulAt(deep)).toBe(Array.from({ length: depth }, () => 'a').join('.'));
    expect(nulAt(JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`))).toBeUndefined();
  });
});
