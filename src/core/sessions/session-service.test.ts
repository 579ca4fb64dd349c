import { afterEach, describe, expect, it } from 'vitest';
import { flexibleRateLimiter } from '../../adapters/rate-limits/flexible-rate-limiter.ts';
import type { App } from '../../app.ts';
import { createTestApp } from '../../../test/support/test-app.ts';
import { setUpOwner } from '../../../test/support/web-client.ts';
import { systemClock } from '../../lib/clock.ts';
import { argon2PasswordHasher } from '../../adapters/crypto/argon2-password-hasher.ts';
import { SessionService } from './session-service.ts';

/**
 * Growing lockouts (decision 0025) on the real stores and the real in-memory limiter, with a one-second window so the
 * escalation can be watched: each lockout of a key within a day holds it twice as long as the one before.
 */
let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function service() {
  app = await createTestApp();
  await setUpOwner(app, 'owner@example.test', 'the right password');
  return new SessionService({
    accounts: app.stores.accounts,
    sessions: app.stores.sessions,
    hasher: argon2PasswordHasher(),
    limiter: flexibleRateLimiter({ kind: 'memory' }),
    clock: systemClock,
    policy: {
      ttlMs: 60_000,
      failuresPerAccount: { name: 'signin-account', points: 2, windowSeconds: 1 },
      failuresPerIp: { name: 'signin-ip', points: 100, windowSeconds: 1 },
      failuresPerDevice: { name: 'signin-device', points: 2, windowSeconds: 1 },
    },
    deviceKey: Buffer.alloc(32, 7),
  });
}

describe('sign-in lockouts grow', () => {
  it('the first lockout lasts the window, the second twice that, the third four times', async () => {
    const s = await service();
    const client = { ip: '203.0.113.9', userAgent: null };
    const tryWrong = () => s.signIn('owner@example.test', 'wrong', client);
    const lockout = async () => {
      expect(await tryWrong()).toMatchObject({ ok: false, error: { code: 'invalid_credentials' } });
      expect(await tryWrong()).toMatchObject({ ok: false, error: { code: 'invalid_credentials' } });
      const held = await tryWrong();
      expect(held).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
      return held.ok ? 0 : held.error.code === 'rate_limited' ? held.error.retryAfterSeconds : 0;
    };
    expect(await lockout()).toBe(1);
    await sleep(1100);
    expect(await lockout()).toBe(2); // the second lockout within the day
    await sleep(1100);
    // still held: the second lockout lasts two windows
    expect(await s.signIn('owner@example.test', 'the right password', client)).toMatchObject({
      ok: false,
      error: { code: 'rate_limited' },
    });
    await sleep(1000);
    const third = await lockout(); // four windows
    expect(third).toBeGreaterThanOrEqual(3);
    expect(third).toBeLessThanOrEqual(4);
  }, 30_000);

  it('the owner’s known browser keeps its own budget while strangers are held', async () => {
    const s = await service();
    const first = await s.signIn('owner@example.test', 'the right password', {
      ip: '198.51.100.1',
      userAgent: null,
    });
    expect(first.ok).toBe(true);
    const device = first.ok ? first.value.device : '';
    const stranger = { ip: '203.0.113.9', userAgent: null };
    for (let i = 0; i < 6; i++) await s.signIn('owner@example.test', `guess ${String(i)}`, stranger);
    expect(await s.signIn('owner@example.test', 'the right password', stranger)).toMatchObject({ ok: false });
    expect(
      await s.signIn('owner@example.test', 'the right password', {
        ip: '198.51.100.1',
        userAgent: null,
        device,
      }),
    ).toMatchObject({ ok: true });
  });
});
