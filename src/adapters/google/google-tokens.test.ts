import { describe, expect, it } from 'vitest';
import { MailAuthError } from '../../core/mail/mail-ports.ts';
import { GoogleAccessTokens } from './google-tokens.ts';

describe('GoogleAccessTokens', () => {
  it('shares one refresh among concurrent callers and reuses the token until a minute before expiry', async () => {
    let now = 1_000_000;
    let refreshes = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const tokens = new GoogleAccessTokens(
      async () => {
        refreshes++;
        await gate;
        return { token: `at-${String(refreshes)}`, expiresAt: now + 3_600_000 };
      },
      () => now,
    );
    const all = Promise.all(Array.from({ length: 20 }, () => tokens.get('rt-1')));
    release();
    expect(new Set(await all)).toEqual(new Set(['at-1']));
    expect(refreshes).toBe(1);
    now += 3_600_000 - 61_000;
    expect(await tokens.get('rt-1')).toBe('at-1');
    now += 2_000; // within the last minute: refreshed early
    expect(await tokens.get('rt-1')).toBe('at-2');
    expect(await tokens.get('rt-1', { force: true })).toBe('at-3');
    // Another sign-in never gets this one's token.
    expect(await tokens.get('rt-2')).toBe('at-4');
  });

  it('passes a refusal on to every waiting caller and keeps nothing', async () => {
    const tokens = new GoogleAccessTokens(() => Promise.reject(new MailAuthError('invalid_grant')));
    const results = await Promise.allSettled([tokens.get('rt'), tokens.get('rt')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(tokens.size).toBe(0);
  });
});
