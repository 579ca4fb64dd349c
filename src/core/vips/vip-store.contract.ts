import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../accounts/account-store.ts';
import { seedAccount } from '../inboxes/inbox-store.contract.ts';
import type { VipStore } from './vip-store.ts';

export function vipStoreContract(h: () => { accounts: AccountStore; vips: VipStore }): void {
  describe('VipStore contract', () => {
    it('adds idempotently, lists sorted, removes, and keeps accounts apart', async () => {
      const a = await seedAccount(h().accounts);
      const b = await seedAccount(h().accounts);
      const t = new Date('2030-01-01T00:00:00Z');
      await h().vips.add(
        a,
        [
          { kind: 'email', value: 'boss@example.test' },
          { kind: 'domain', value: 'example.org' },
        ],
        t,
      );
      await h().vips.add(a, [{ kind: 'email', value: 'boss@example.test' }], t);
      expect(await h().vips.list(a)).toEqual([
        { kind: 'domain', value: 'example.org' },
        { kind: 'email', value: 'boss@example.test' },
      ]);
      expect(await h().vips.list(b)).toEqual([]);
      expect(
        await h().vips.remove(a, [
          { kind: 'email', value: 'boss@example.test' },
          { kind: 'email', value: 'nobody@x.test' },
        ]),
      ).toBe(1);
      expect(await h().vips.list(a)).toEqual([{ kind: 'domain', value: 'example.org' }]);
    });
  });
}
