import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../accounts/account-store.ts';
import { seedAccount } from '../inboxes/inbox-store.contract.ts';
import type { SecondFactorStore } from './second-factor-store.ts';

export interface SecondFactorStoreHarness {
  readonly accounts: AccountStore;
  readonly factors: SecondFactorStore;
  /** The sealed secret as the database holds it. */
  stored(accountId: string): Promise<string | undefined>;
}

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const AT = new Date('2030-01-01T00:00:00Z');

export function secondFactorStoreContract(h: () => SecondFactorStoreHarness): void {
  describe('SecondFactorStore contract', () => {
    it('keeps the secret sealed, turns on once, and reads back', async () => {
      const acct = await seedAccount(h().accounts);
      expect(await h().factors.get(acct)).toBeUndefined();
      expect(await h().factors.enable(acct, SECRET, 100, ['h1', 'h2', 'h3'], AT)).toBe(true);
      expect(await h().factors.enable(acct, 'AAAAAAAAAAAAAAAA', 200, ['h4'], AT)).toBe(false);
      expect(await h().factors.get(acct)).toEqual({
        secret: SECRET,
        lastStep: 100,
        recoveryCodesLeft: 3,
        createdAt: AT,
      });
      const sealed = await h().stored(acct);
      expect(sealed).toBeDefined();
      expect(sealed).not.toContain(SECRET);
    });

    it('spends each step once, never one at or before the last, however many try at once', async () => {
      const acct = await seedAccount(h().accounts);
      await h().factors.enable(acct, SECRET, 100, [], AT);
      expect(await h().factors.spendStep(acct, 100)).toBe(false);
      expect(await h().factors.spendStep(acct, 99)).toBe(false);
      const at = await Promise.all(Array.from({ length: 8 }, () => h().factors.spendStep(acct, 101)));
      expect(at.filter(Boolean)).toHaveLength(1);
      expect(await h().factors.spendStep(acct, 102)).toBe(true);
      expect((await h().factors.get(acct))?.lastStep).toBe(102);
      const other = await seedAccount(h().accounts);
      expect(await h().factors.spendStep(other, 1000)).toBe(false);
    });

    it('spends a recovery code once, only the account’s own, however many try at once', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      await h().factors.enable(acct, SECRET, 1, ['a', 'b'], AT);
      await h().factors.enable(other, SECRET, 1, ['c'], AT);
      expect(await h().factors.spendRecoveryCode(acct, 'c')).toBe(false);
      const at = await Promise.all(Array.from({ length: 8 }, () => h().factors.spendRecoveryCode(acct, 'a')));
      expect(at.filter(Boolean)).toHaveLength(1);
      expect((await h().factors.get(acct))?.recoveryCodesLeft).toBe(1);
      expect((await h().factors.get(other))?.recoveryCodesLeft).toBe(1);
    });

    it('replaces every recovery code at once, only while it is on', async () => {
      const acct = await seedAccount(h().accounts);
      expect(await h().factors.replaceRecoveryCodes(acct, ['x'])).toBe(false);
      await h().factors.enable(acct, SECRET, 1, ['a', 'b'], AT);
      expect(await h().factors.spendRecoveryCode(acct, 'a')).toBe(true);
      expect(await h().factors.replaceRecoveryCodes(acct, ['c', 'd', 'e'])).toBe(true);
      expect((await h().factors.get(acct))?.recoveryCodesLeft).toBe(3);
      expect(await h().factors.spendRecoveryCode(acct, 'b')).toBe(false);
      expect(await h().factors.spendRecoveryCode(acct, 'd')).toBe(true);
      expect((await h().factors.get(acct))?.lastStep).toBe(1);
      await h().factors.disable(acct);
      expect(await h().factors.replaceRecoveryCodes(acct, ['f'])).toBe(false);
      expect(await h().factors.spendRecoveryCode(acct, 'f')).toBe(false);
    });

    it('turns off with its recovery codes, and on again afresh', async () => {
      const acct = await seedAccount(h().accounts);
      await h().factors.enable(acct, SECRET, 5, ['a'], AT);
      expect(await h().factors.disable(acct)).toBe(true);
      expect(await h().factors.disable(acct)).toBe(false);
      expect(await h().factors.get(acct)).toBeUndefined();
      expect(await h().factors.spendRecoveryCode(acct, 'a')).toBe(false);
      expect(await h().factors.enable(acct, SECRET, 7, ['a'], AT)).toBe(true);
      expect(await h().factors.get(acct)).toMatchObject({ lastStep: 7, recoveryCodesLeft: 1 });
    });
  });
}
