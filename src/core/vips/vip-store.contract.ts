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
        10,
      );
      await h().vips.add(a, [{ kind: 'email', value: 'boss@example.test' }], t, 10);
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

    // Decision 0119: the list has an end, and adds that would pass it add nothing, even all at once.
    it('adds nothing past the most the list may hold; entries already there do not count twice', async () => {
      const a = await seedAccount(h().accounts);
      const t = new Date('2030-01-01T00:00:00Z');
      const email = (n: number) => ({ kind: 'email' as const, value: `p${String(n)}@example.test` });
      expect(await h().vips.add(a, [email(1), email(2), email(2)], t, 3)).toEqual({
        ok: true,
        value: { listed: 2 },
      });
      expect(await h().vips.add(a, [email(1), email(3)], t, 3)).toEqual({ ok: true, value: { listed: 3 } });
      expect(await h().vips.add(a, [email(3), email(4)], t, 3)).toEqual({ ok: false, error: { listed: 3 } });
      expect(await h().vips.list(a)).toHaveLength(3);
      const racing = await Promise.all(
        Array.from({ length: 6 }, (_, i) => h().vips.add(a, [email(10 + i)], t, 5)),
      );
      expect(racing.filter((r) => r.ok)).toHaveLength(2);
      expect(await h().vips.list(a)).toHaveLength(5);
    });
  });
}
