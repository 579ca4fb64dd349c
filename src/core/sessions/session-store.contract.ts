import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import { seedAccount } from '../inboxes/inbox-store.contract.ts';
import type { SessionStore } from './session-store.ts';

const t = (h: number) => new Date(Date.UTC(2030, 0, 1, h));

export function sessionStoreContract(h: () => { accounts: AccountStore; sessions: SessionStore }): void {
  describe('SessionStore contract', () => {
    it('finds a live session, not an expired or deleted one', async () => {
      const acct = await seedAccount(h().accounts);
      const idHash = newId('s');
      await h().sessions.create({
        idHash,
        accountId: acct,
        createdAt: t(0),
        lastSeenAt: t(0),
        expiresAt: t(2),
        userAgent: 'UA',
      });
      expect(await h().sessions.findLive(idHash, t(1))).toMatchObject({ accountId: acct, userAgent: 'UA' });
      expect(await h().sessions.findLive(idHash, t(2))).toBeUndefined();
      await h().sessions.touch(idHash, t(1), t(5));
      expect(await h().sessions.findLive(idHash, t(4))).toMatchObject({ lastSeenAt: t(1), expiresAt: t(5) });
      await h().sessions.delete(idHash);
      expect(await h().sessions.findLive(idHash, t(1))).toBeUndefined();
    });

    it('deletes every session of an account, and with the account', async () => {
      const acct = await seedAccount(h().accounts);
      for (const n of [1, 2]) {
        await h().sessions.create({
          idHash: `${newId('s')}${String(n)}`,
          accountId: acct,
          createdAt: t(0),
          lastSeenAt: t(0),
          expiresAt: t(9),
          userAgent: null,
        });
      }
      expect(await h().sessions.deleteAllFor(acct)).toBe(2);
      const idHash = newId('s');
      await h().sessions.create({
        idHash,
        accountId: acct,
        createdAt: t(0),
        lastSeenAt: t(0),
        expiresAt: t(9),
        userAgent: null,
      });
      await h().accounts.delete(acct);
      expect(await h().sessions.findLive(idHash, t(1))).toBeUndefined();
    });
  });
}
