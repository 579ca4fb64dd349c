import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../accounts/account-store.ts';
import { seedAccount } from '../inboxes/inbox-store.contract.ts';
import type { SignInEvent, SignInHistory } from './sign-in-history.ts';

const t = (m: number) => new Date(Date.UTC(2030, 0, 1, 0, m));

export function signInHistoryContract(h: () => { accounts: AccountStore; history: SignInHistory }): void {
  describe('SignInHistory contract', () => {
    it('lists an account’s events newest first, its own only, as recorded', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const event = (m: number, kind: SignInEvent['kind'], accountId = acct): SignInEvent => ({
        at: t(m),
        accountId,
        kind,
        ip: '203.0.113.9',
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
      });
      await h().history.record(event(1, 'wrong_password'));
      await h().history.record(event(2, 'signed_in_with_code'));
      await h().history.record({ ...event(3, 'two_step_off_by_operator'), ip: null, userAgent: null });
      await h().history.record(event(2, 'signed_in', other));
      expect(await h().history.recent(acct, 10)).toEqual([
        { ...event(3, 'two_step_off_by_operator'), ip: null, userAgent: null },
        event(2, 'signed_in_with_code'),
        event(1, 'wrong_password'),
      ]);
      expect((await h().history.recent(acct, 2)).map((e) => e.kind)).toEqual([
        'two_step_off_by_operator',
        'signed_in_with_code',
      ]);
      expect(await h().history.recent(other, 10)).toEqual([event(2, 'signed_in', other)]);
    });

    it('keeps events of the same moment in the order they came', async () => {
      const acct = await seedAccount(h().accounts);
      for (const kind of ['wrong_password', 'wrong_code', 'signed_in_with_recovery_code'] as const)
        await h().history.record({ at: t(5), accountId: acct, kind, ip: '::1', userAgent: null });
      expect((await h().history.recent(acct, 10)).map((e) => e.kind)).toEqual([
        'signed_in_with_recovery_code',
        'wrong_code',
        'wrong_password',
      ]);
    });

    it('the sweep removes what is older than its limit, of every account, and only that', async () => {
      const a = await seedAccount(h().accounts);
      const b = await seedAccount(h().accounts);
      for (const [accountId, m] of [
        [a, 1],
        [a, 9],
        [b, 2],
        [b, 10],
      ] as const)
        await h().history.record({ at: t(m), accountId, kind: 'signed_in', ip: null, userAgent: null });
      expect(await h().history.deleteBefore(t(9))).toBeGreaterThanOrEqual(2);
      expect((await h().history.recent(a, 10)).map((e) => e.at)).toEqual([t(9)]);
      expect((await h().history.recent(b, 10)).map((e) => e.at)).toEqual([t(10)]);
    });
  });
}
