import { describe, expect, it } from 'vitest';
import type { Account, AccountId } from '../accounts/account.ts';
import { fixedClock } from '../../lib/clock.ts';
import type { BearerVerifier, Verified } from './principal.ts';
import { VerifiedCache } from './verified-cache.ts';

const T0 = new Date('2026-11-22T10:00:00Z');
const account = { id: 'acc_1' as AccountId, plan: 'pro' } as Account;
const verified = (id: string, expiresAt: Date | null = null): Verified => ({
  principal: {
    accountId: account.id,
    credential: { kind: 'api_key', id },
    scopes: ['mcp:tools'],
    powers: null,
    inboxes: null,
    expiresAt,
  },
  account,
});

/** A verifier over a mutable table of live tokens, counting lookups. */
function table(live: Map<string, Verified>) {
  const calls: string[] = [];
  const verifier: BearerVerifier = {
    verify: (token) => {
      calls.push(token);
      return Promise.resolve(live.get(token));
    },
  };
  return { verifier, calls };
}

describe('VerifiedCache', () => {
  it('believes a verified credential for the TTL, then asks again', async () => {
    const clock = fixedClock(T0);
    const live = new Map([['itk_a', verified('key_a')]]);
    const { verifier, calls } = table(live);
    const v = new VerifiedCache({ ttlMs: 5000, clock }).wrap(verifier);
    expect(await v.verify('itk_a')).toEqual(verified('key_a'));
    clock.advance(4999);
    expect(await v.verify('itk_a')).toEqual(verified('key_a'));
    expect(calls).toEqual(['itk_a']);
    live.delete('itk_a'); // revoked by another process: noticed once the entry is older than the TTL
    clock.advance(1);
    expect(await v.verify('itk_a')).toBeUndefined();
    expect(calls).toEqual(['itk_a', 'itk_a']);
  });

  it('never keeps a failure: unknown tokens are looked up every time, and a new one works at once', async () => {
    const clock = fixedClock(T0);
    const live = new Map<string, Verified>();
    const { verifier, calls } = table(live);
    const v = new VerifiedCache({ ttlMs: 5000, clock }).wrap(verifier);
    expect(await v.verify('itk_new')).toBeUndefined();
    live.set('itk_new', verified('key_new'));
    expect(await v.verify('itk_new')).toEqual(verified('key_new'));
    expect(calls).toEqual(['itk_new', 'itk_new']);
  });

  it('does not outlive the credential’s own expiry', async () => {
    const clock = fixedClock(T0);
    const live = new Map([['ita_t', verified('tok', new Date(T0.getTime() + 1000))]]);
    const { verifier, calls } = table(live);
    const v = new VerifiedCache({ ttlMs: 5000, clock }).wrap(verifier);
    await v.verify('ita_t');
    clock.advance(999);
    await v.verify('ita_t');
    expect(calls).toHaveLength(1);
    clock.advance(1);
    live.delete('ita_t'); // expired: the store no longer answers for it
    expect(await v.verify('ita_t')).toBeUndefined();
    expect(calls).toHaveLength(2);
  });

  it('clear() forgets every wrapped verifier’s entries', async () => {
    const clock = fixedClock(T0);
    const live = new Map([['itk_a', verified('key_a')]]);
    const one = table(live);
    const two = table(live);
    const cache = new VerifiedCache({ ttlMs: 5000, clock });
    const a = cache.wrap(one.verifier);
    const b = cache.wrap(two.verifier);
    await a.verify('itk_a');
    await b.verify('itk_a');
    live.delete('itk_a');
    cache.clear();
    expect(await a.verify('itk_a')).toBeUndefined();
    expect(await b.verify('itk_a')).toBeUndefined();
    expect(one.calls).toHaveLength(2);
    expect(two.calls).toHaveLength(2);
  });

  it('a lookup that began before clear() does not fill the cache with what it found', async () => {
    const clock = fixedClock(T0);
    let release: (v: Verified | undefined) => void = () => undefined;
    let calls = 0;
    const slow: BearerVerifier = {
      verify: () => {
        calls++;
        return new Promise((r) => (release = r));
      },
    };
    const cache = new VerifiedCache({ ttlMs: 5000, clock });
    const v = cache.wrap(slow);
    const pending = v.verify('itk_a');
    cache.clear(); // the key is revoked while its lookup is in flight
    release(verified('key_a'));
    expect(await pending).toEqual(verified('key_a')); // that request raced the revocation, as it would uncached
    const next = v.verify('itk_a');
    release(undefined);
    expect(await next).toBeUndefined();
    expect(calls).toBe(2);
  });

  it('holds at most maxEntries, dropping the oldest', async () => {
    const clock = fixedClock(T0);
    const live = new Map(['a', 'b', 'c'].map((t) => [`itk_${t}`, verified(`key_${t}`)]));
    const { verifier, calls } = table(live);
    const v = new VerifiedCache({ ttlMs: 5000, clock, maxEntries: 2 }).wrap(verifier);
    for (const t of ['itk_a', 'itk_b', 'itk_c']) await v.verify(t);
    await v.verify('itk_c');
    await v.verify('itk_b');
    expect(calls).toEqual(['itk_a', 'itk_b', 'itk_c']);
    await v.verify('itk_a');
    expect(calls).toEqual(['itk_a', 'itk_b', 'itk_c', 'itk_a']);
  });

  it('with a TTL of 0 is not there at all', () => {
    const { verifier } = table(new Map());
    expect(new VerifiedCache({ ttlMs: 0, clock: fixedClock(T0) }).wrap(verifier)).toBe(verifier);
  });
});
