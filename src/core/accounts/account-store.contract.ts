import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import type { AccountId } from './account.ts';
import type { AccountStore, NewAccount } from './account-store.ts';

export function newAccount(overrides: Partial<NewAccount> = {}): NewAccount {
  return {
    id: newId('acct') as AccountId,
    email: `${newId('user')}@example.test`,
    plan: 'trial',
    trialEndsAt: new Date('2030-01-15T00:00:00Z'),
    createdAt: new Date('2030-01-01T00:00:00Z'),
    ...overrides,
  };
}

/** The behaviour every AccountStore adapter must show, including under concurrent callers. */
export function accountStoreContract(store: () => AccountStore): void {
  describe('AccountStore contract', () => {
    it('creates, reads back by id and by case-folded email', async () => {
      const a = newAccount({ email: 'Person@Example.TEST' });
      const created = await store().create(a);
      expect(created.ok).toBe(true);
      const byId = await store().get(a.id);
      expect(byId).toEqual({
        id: a.id,
        email: 'person@example.test',
        plan: 'trial',
        trialEndsAt: a.trialEndsAt,
        paymentState: 'ok',
        createdAt: a.createdAt,
      });
      expect(await store().findByEmail('PERSON@example.test')).toEqual(byId);
      expect(await store().get(newId('acct') as AccountId)).toBeUndefined();
    });

    it('refuses a second account with the same email, whatever its case', async () => {
      const a = newAccount();
      await store().create(a);
      const again = await store().create(newAccount({ email: a.email.toUpperCase() }));
      expect(again).toEqual({ ok: false, error: 'email_taken' });
    });

    it('lets exactly one of ten concurrent creates with one email succeed', async () => {
      const email = `${newId('race')}@example.test`;
      const results = await Promise.all(
        Array.from({ length: 10 }, () => store().create(newAccount({ email }))),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok)).toHaveLength(9);
    });

    it('changes plan and payment state', async () => {
      const a = newAccount();
      await store().create(a);
      expect(await store().setPlan(a.id, 'pro', null)).toMatchObject({ plan: 'pro', trialEndsAt: null });
      expect(await store().setPaymentState(a.id, 'failed')).toMatchObject({ paymentState: 'failed' });
      expect(await store().setPlan(newId('acct') as AccountId, 'pro', null)).toBeUndefined();
    });

    it('counts and deletes', async () => {
      const before = await store().count();
      const a = newAccount();
      await store().create(a);
      expect(await store().count()).toBe(before + 1);
      expect(await store().delete(a.id)).toBe(true);
      expect(await store().delete(a.id)).toBe(false);
      expect(await store().get(a.id)).toBeUndefined();
    });
  });
}
