import { describe, expect, it } from 'vitest';
import { MailAuthError } from '../../core/mail/mail-ports.ts';
import { AccessTokens } from './access-tokens.ts';

describe('AccessTokens', () => {
  it('shares one refresh among concurrent callers and reuses the token until a minute before expiry', async () => {
    let now = 1_000_000;
    let refreshes = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const tokens = new AccessTokens(
      async () => {
        refreshes++;
        await gate;
        return { token: `at-${String(refreshes)}`, expiresAt: now + 3_600_000 };
      },
      () => now,
    );
    const all = Promise.all(Array.from({ length: 20 }, () => tokens.get('inbox-1', 'rt-1')));
    release();
    expect(new Set(await all)).toEqual(new Set(['at-1']));
    expect(refreshes).toBe(1);
    now += 3_600_000 - 61_000;
    expect(await tokens.get('inbox-1', 'rt-1')).toBe('at-1');
    now += 2_000; // within the last minute: refreshed early
    expect(await tokens.get('inbox-1', 'rt-1')).toBe('at-2');
    expect(await tokens.get('inbox-1', 'rt-1', { force: true })).toBe('at-3');
    // Another mailbox never gets this one's token.
    expect(await tokens.get('inbox-2', 'rt-2')).toBe('at-4');
  });

  it('passes a refusal on to every waiting caller and keeps nothing', async () => {
    const tokens = new AccessTokens(() => Promise.reject(new MailAuthError('invalid_grant')));
    const results = await Promise.allSettled([tokens.get('inbox', 'rt'), tokens.get('inbox', 'rt')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(tokens.size).toBe(0);
  });

  it('stores a rotated refresh token before the access token is used, and refreshes with the newest one', async () => {
    const used: string[] = [];
    const stored: string[] = [];
    let n = 0;
    const tokens = new AccessTokens((rt) => {
      used.push(rt);
      n++;
      return Promise.resolve({ token: `at-${String(n)}`, expiresAt: 0, refreshToken: `rt-${String(n + 1)}` });
    });
    const onRotated = (rt: string) => {
      stored.push(rt);
      return Promise.resolve();
    };
    expect(await tokens.get('inbox', 'rt-1', { onRotated })).toBe('at-1');
    // The caller still holds the old stored token: the lineage knows it, the newest one is used.
    expect(await tokens.get('inbox', 'rt-1', { onRotated, force: true })).toBe('at-2');
    expect(used).toEqual(['rt-1', 'rt-2']);
    expect(stored).toEqual(['rt-2', 'rt-3']);
    // A sign-in of another lineage (the person signed in again) starts afresh with its own token.
    expect(await tokens.get('inbox', 'rt-new', { onRotated })).toBe('at-3');
    expect(used.at(-1)).toBe('rt-new');
  });

  // Found by a fresh clone's run of test/gmail/gmail-faults.test.ts: after the person signed in again, the first
  // sync waited for the refresh a poll had started with the revoked token, failed with it, and marked the inbox
  // needs_reconnect once more.
  it('a sign-in does not wait for, or fail with, a refresh still running for the one it replaced', async () => {
    const calls: string[] = [];
    const gates: { rt: string; release: () => void; fail: (e: Error) => void }[] = [];
    const gate = (rt: string) => gates.filter((g) => g.rt === rt).at(-1)!;
    const tokens = new AccessTokens(
      (rt) =>
        new Promise((resolve, reject) => {
          calls.push(rt);
          const n = calls.length;
          gates.push({
            rt,
            release: () => resolve({ token: `at-${String(n)}-for-${rt}`, expiresAt: Date.now() + 3_600_000 }),
            fail: reject,
          });
        }),
    );
    const old = tokens.get('inbox', 'rt-revoked');
    const fresh = tokens.get('inbox', 'rt-new');
    // Each started its own refresh: the new sign-in did not join the old one's.
    expect(calls).toEqual(['rt-revoked', 'rt-new']);
    gate('rt-revoked').fail(new MailAuthError('invalid_grant'));
    await expect(old).rejects.toThrow(MailAuthError);
    gate('rt-new').release();
    expect(await fresh).toBe('at-2-for-rt-new');
    // A session still holding an older sign-in that works gets its own token; neither replaces the other.
    const older = tokens.get('inbox', 'rt-older');
    gate('rt-older').release();
    expect(await older).toBe('at-3-for-rt-older');
    expect(await tokens.get('inbox', 'rt-new')).toBe('at-2-for-rt-new');
    expect(await tokens.get('inbox', 'rt-older')).toBe('at-3-for-rt-older');
    // The old sign-in failing later drops only its own token.
    const failing = tokens.get('inbox', 'rt-older', { force: true });
    gate('rt-older').fail(new MailAuthError('invalid_grant'));
    await expect(failing).rejects.toThrow(MailAuthError);
    expect(await tokens.get('inbox', 'rt-new')).toBe('at-2-for-rt-new');
    // Callers of one sign-in still share one refresh.
    const both = Promise.all([
      tokens.get('inbox', 'rt-new', { force: true }),
      tokens.get('inbox', 'rt-new', { force: true }),
    ]);
    expect(calls).toEqual(['rt-revoked', 'rt-new', 'rt-older', 'rt-older', 'rt-new']);
    gate('rt-new').release();
    expect(await both).toEqual(['at-5-for-rt-new', 'at-5-for-rt-new']);
  });
});

describe('AccessTokens on several processes sharing one stored sign-in', () => {
  /** A provider whose refresh tokens are good for one use (each refresh retires the token it was given). */
  function singleUseProvider(first: string) {
    const live = new Set([first]);
    let n = 0;
    return {
      refreshed: [] as string[],
      refresh(rt: string) {
        this.refreshed.push(rt);
        if (!live.delete(rt)) return Promise.reject(new MailAuthError('invalid_grant'));
        n++;
        live.add(`rt-${String(n)}`);
        return Promise.resolve({
          token: `at-${String(n)}`,
          expiresAt: Date.now() + 3_600_000,
          refreshToken: `rt-${String(n)}`,
        });
      },
    };
  }

  it('a refresh refused because another process rotated the token first follows the stored one', async () => {
    const provider = singleUseProvider('rt-0');
    let vault = 'rt-0';
    const onRotated = (rt: string) => {
      vault = rt;
      return Promise.resolve();
    };
    const stored = () => Promise.resolve(vault);
    // Two nodes, each its own cache, both holding the sign-in as it was stored before either refreshed.
    const nodes = [1, 2].map(() => new AccessTokens((rt) => provider.refresh(rt)));
    const got = await Promise.all(nodes.map((t) => t.get('inbox', 'rt-0', { onRotated, stored })));
    expect(new Set(got).size).toBe(2);
    expect(provider.refreshed).toEqual(['rt-0', 'rt-0', 'rt-1']);
    expect(vault).toBe('rt-2');
    // Each node refreshes on from there with what it knows, and follows the other's rotation again when needed.
    const again = await Promise.all(
      nodes.map((t) => t.get('inbox', 'rt-0', { onRotated, stored, force: true })),
    );
    expect(again).toHaveLength(2);
    expect(vault).toBe('rt-4');
  });

  it('a refusal stands when the stored token is the one refused, or gone (after reading it again a while)', async () => {
    const refused = () => Promise.reject(new MailAuthError('invalid_grant'));
    let reads = 0;
    const same = new AccessTokens(refused);
    await expect(
      same.get('inbox', 'rt-0', { stored: () => (reads++, Promise.resolve('rt-0')) }),
    ).rejects.toThrow(MailAuthError);
    expect(reads).toBe(3);
    const gone = new AccessTokens(refused);
    await expect(gone.get('inbox', 'rt-0', { stored: () => Promise.resolve(undefined) })).rejects.toThrow(
      MailAuthError,
    );
    // Other failures are not about the token: no second look.
    reads = 0;
    const down = new AccessTokens(() => Promise.reject(new Error('ECONNRESET')));
    await expect(
      down.get('inbox', 'rt-0', { stored: () => (reads++, Promise.resolve('rt-9')) }),
    ).rejects.toThrow('ECONNRESET');
    expect(reads).toBe(0);
  });
});
