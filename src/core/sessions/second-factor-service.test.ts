import { describe, expect, it } from 'vitest';
import { rateLimiterOnItsOwn } from '../../../test/support/rate-limits.ts';
import { fixedClock } from '../../lib/clock.ts';
import { totpCode, totpStep } from '../../lib/totp.ts';
import type { AccountId } from '../accounts/account.ts';
import { SecondFactorService } from './second-factor-service.ts';
import type { SecondFactor, SecondFactorStore } from './second-factor-store.ts';

const ACCOUNT = 'acct_x' as AccountId;

/** A store holding one factor whose secret could not be opened (sealed under a key lost since). */
function unopenable(): SecondFactorStore {
  const factor: SecondFactor = { secret: null, lastStep: 0, recoveryCodesLeft: 0, createdAt: new Date(0) };
  return {
    get: () => Promise.resolve(factor),
    enable: () => Promise.resolve(false),
    spendStep: () => Promise.resolve(true),
    spendRecoveryCode: () => Promise.resolve(false),
    replaceRecoveryCodes: () => Promise.resolve(true),
    disable: () => Promise.resolve(true),
  };
}

const limiter = await rateLimiterOnItsOwn();

describe('a second factor whose secret cannot be opened', () => {
  it('matches no code — not the empty key’s, which anyone can compute', async () => {
    const clock = fixedClock(new Date('2030-01-01T00:00:00Z'));
    const s = new SecondFactorService({
      factors: unopenable(),
      limiter,
      clock,
      failures: { name: 'second-factor', points: 100, windowSeconds: 60 },
      history: {
        record: () => Promise.resolve(),
        recent: () => Promise.resolve([]),
        deleteBefore: () => Promise.resolve(0),
      },
    });
    const step = totpStep(clock.now());
    for (const code of [totpCode('', step), totpCode('', step - 1), totpCode('', step + 1)])
      expect(await s.check(ACCOUNT, code, { ip: '203.0.113.9', userAgent: null })).toMatchObject({
        ok: false,
        error: { code: 'wrong_code' },
      });
  });
});
