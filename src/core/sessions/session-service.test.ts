import { afterEach, describe, expect, it } from 'vitest';
import { tableRateLimiter } from '../../adapters/rate-limits/table-rate-limiter.ts';
import type { App } from '../../app.ts';
import { createTestApp } from '../../../test/support/test-app.ts';
import { setUpOwner } from '../../../test/support/web-client.ts';
import { fixedClock, systemClock, type Clock } from '../../lib/clock.ts';
import { argon2PasswordHasher } from '../../adapters/crypto/argon2-password-hasher.ts';
import { KyselySecretLinkStore } from '../../adapters/storage/kysely-secret-link-store.ts';
import { SessionService } from './session-service.ts';
import { SecondFactorService } from './second-factor-service.ts';
import { KyselySecondFactorStore } from '../../adapters/storage/kysely-second-factor-store.ts';
import { aead } from '../../lib/aead.ts';

/**
 * Growing lockouts (decision 0025) on the real stores and the real limiter (on the machine's clock), with a one-second
 * window so the escalation can be watched: each lockout of a key within a day holds it twice as long as the one before.
 */
let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The service on the test app's stores; its failure windows `windowSeconds` long. */
async function service(clock: Clock = systemClock, windowSeconds = 1) {
  app = await createTestApp();
  await setUpOwner(app, 'owner@example.test', 'the right password');
  const limiter = tableRateLimiter(app.db, systemClock);
  return new SessionService({
    secondFactor: new SecondFactorService({
      factors: new KyselySecondFactorStore(app.db, aead(Buffer.alloc(32, 7), 'credential')),
      limiter,
      clock,
      failures: { name: 'signin-second-factor', points: 2, windowSeconds },
      history: app.stores.signInHistory,
    }),
    history: app.stores.signInHistory,
    passkeys: app.services.passkeys,
    accounts: app.stores.accounts,
    sessions: app.stores.sessions,
    hasher: argon2PasswordHasher(),
    limiter,
    clock,
    policy: {
      ttlMs: 60_000,
      failuresPerAccount: { name: 'signin-account', points: 2, windowSeconds },
      failuresPerIp: { name: 'signin-ip', points: 100, windowSeconds },
      failuresPerDevice: { name: 'signin-device', points: 2, windowSeconds },
    },
    deviceKey: Buffer.alloc(32, 7),
    links: new KyselySecretLinkStore(app.db),
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
    const device = first.ok && 'device' in first.value ? first.value.device : '';
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

describe('changing and resetting a password (decision 0067)', () => {
  const RIGHT = 'the right password';
  const NEW = 'a new passphrase, long';
  const stranger = { ip: '203.0.113.9', userAgent: null };
  const owner = async () => (await app!.stores.accounts.findByEmail('owner@example.test'))!;

  it('changes it with the current one: every session of the account ends and this browser gets a new one', async () => {
    const s = await service();
    const account = await owner();
    const elsewhere = await s.start(account, 'another browser');
    const here = await s.start(account, 'this browser');
    const changed = await s.changePassword(account, RIGHT, '', NEW, stranger);
    expect(changed.ok).toBe(true);
    expect(await s.authenticate(elsewhere)).toBeUndefined();
    expect(await s.authenticate(here)).toBeUndefined();
    expect(await s.authenticate(changed.ok ? changed.value.token : '')).toMatchObject({ id: account.id });
    expect(await s.signIn('owner@example.test', RIGHT, stranger)).toMatchObject({ ok: false });
    expect(await s.signIn('owner@example.test', NEW, stranger)).toMatchObject({ ok: true });
  });

  it('a wrong current password spends the sign-in budget, so a session in other hands guesses no faster', async () => {
    const s = await service(systemClock, 60);
    const account = await owner();
    // A new password too short is refused first, and spends nothing.
    for (let i = 0; i < 5; i++)
      expect(await s.changePassword(account, 'a guess', '', 'short', stranger)).toMatchObject({
        ok: false,
        error: { code: 'weak_password' },
      });
    for (let i = 0; i < 2; i++)
      expect(await s.changePassword(account, `guess ${String(i)}`, '', NEW, stranger)).toMatchObject({
        ok: false,
        error: { code: 'wrong_password' },
      });
    expect(await s.changePassword(account, RIGHT, '', NEW, stranger)).toMatchObject({
      ok: false,
      error: { code: 'rate_limited' },
    });
    // The same budget as the sign-in form's: held there too.
    expect(await s.signIn('owner@example.test', RIGHT, stranger)).toMatchObject({
      ok: false,
      error: { code: 'rate_limited' },
    });
  });

  it('an operator’s reset link sets a new password once, within the hour, ends every session and lifts the lockout', async () => {
    const clock = fixedClock(new Date());
    const s = await service(clock, 60);
    const account = await owner();
    const before = await s.start(account, null);
    // The person forgot it: their tries locked the account's address.
    for (let i = 0; i < 3; i++) await s.signIn('owner@example.test', `forgotten ${String(i)}`, stranger);
    expect(await s.signIn('owner@example.test', RIGHT, stranger)).toMatchObject({
      error: { code: 'rate_limited' },
    });
    expect(await s.issuePasswordReset('nobody@example.test')).toEqual({ ok: false, error: 'no_account' });

    const issued = await s.issuePasswordReset('Owner@Example.test');
    const token = issued.ok ? issued.value : '';
    expect(await s.passwordResetFor(token)).toMatchObject({ id: account.id });
    expect(await s.resetPassword(token, 'short', stranger)).toMatchObject({
      error: { code: 'weak_password' },
    });
    const done = await Promise.all([
      s.resetPassword(token, NEW, stranger),
      s.resetPassword(token, NEW, stranger),
    ]);
    expect(done.filter((d) => d.ok)).toHaveLength(1);
    expect(done.filter((d) => !d.ok)).toEqual([{ ok: false, error: { code: 'invalid_link' } }]);
    expect(await s.authenticate(before)).toBeUndefined();
    const signedIn = done.find((d) => d.ok);
    expect(await s.authenticate(signedIn?.ok === true ? (signedIn.value.token ?? '') : '')).toMatchObject({
      id: account.id,
    });
    expect(await s.passwordResetFor(token)).toBeUndefined();
    expect(await s.signIn('owner@example.test', NEW, stranger)).toMatchObject({ ok: true });

    // An hour later a link no longer works.
    const late = await s.issuePasswordReset('owner@example.test');
    clock.advance(60 * 60_000);
    expect(await s.passwordResetFor(late.ok ? late.value : '')).toBeUndefined();
    expect(await s.resetPassword(late.ok ? late.value : '', 'another new passphrase', stranger)).toEqual({
      ok: false,
      error: { code: 'invalid_link' },
    });
  });
});
