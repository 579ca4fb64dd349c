import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalAddress } from '../../../lib/ip-address.ts';
import { isPublicHostAddress } from '../../net/host-guard.ts';
import { fromUidSet, toUidSet } from './uid-set.ts';

describe('UID sets', () => {
  it('compresses runs into ranges', () => {
    expect(toUidSet([5, 1, 2, 3, 3, 9, 10, 7])).toBe('1:3,5,7,9:10');
    expect(toUidSet(Array.from({ length: 100_000 }, (_, i) => i + 1))).toBe('1:100000');
    expect(toUidSet([])).toBe('');
  });

  it('round-trips any set of UIDs', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5000 }), { maxLength: 300 }), (uids) => {
        const want = [...new Set(uids)].sort((a, b) => a - b);
        expect(fromUidSet(toUidSet(uids))).toEqual(want);
      }),
    );
  });
});

describe('the SSRF guard', () => {
  it('checks IPv4 embedded in IPv6 as IPv4, whatever the spelling', () => {
    expect(canonicalAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(canonicalAddress('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(canonicalAddress('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(canonicalAddress('::ffff:a9fe:a9fe')).toBe('169.254.169.254');
    for (const a of ['::ffff:7f00:1', '0:0:0:0:0:0:0:1', '::ffff:10.0.0.1', '::127.0.0.1', '127.0.0.1']) {
      expect(isPublicHostAddress(a), a).toBe(false);
    }
    expect(isPublicHostAddress('93.184.215.14')).toBe(true);
    expect(isPublicHostAddress('2a00:1450:4001:80b::200e')).toBe(true);
  });
});
