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

    it('removes expired sessions in a sweep, and only those', async () => {
      const acct = await seedAccount(h().accounts);
      const session = (expiresAt: Date) => ({
        idHash: newId('s'),
        accountId: acct,
        createdAt: t(0),
        lastSeenAt: t(0),
        expiresAt,
        userAgent: null,
      });
      const ended = session(t(3));
      const slid = session(t(3));
      const live = session(t(4));
      for (const s of [ended, slid, live]) await h().sessions.create(s);
      // Used before it ended, a session slides: the sweep goes by the expiry it has now.
      await h().sessions.touch(slid.idHash, t(2), t(6));
      expect(await h().sessions.deleteExpired(t(3))).toBe(1);
      expect(await h().sessions.findLive(ended.idHash, t(2))).toBeUndefined();
      expect(await h().sessions.findLive(slid.idHash, t(3))).toMatchObject({ expiresAt: t(6) });
      expect(await h().sessions.findLive(live.idHash, t(3))).toMatchObject({ expiresAt: t(4) });
      expect(await h().sessions.deleteExpired(t(3))).toBe(0);
    });

    it('lists an account’s live sessions, last used first, and ends all but one', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const session = (accountId: typeof acct, seen: number, expiresAt = t(9)) => ({
        idHash: newId('s'),
        accountId,
        createdAt: t(0),
        lastSeenAt: t(seen),
        expiresAt,
        userAgent: `browser ${String(seen)}`,
      });
      const older = session(acct, 1);
      const newer = session(acct, 2);
      const ended = session(acct, 3, t(4));
      const theirs = session(other, 1);
      for (const s of [older, newer, ended, theirs]) await h().sessions.create(s);
      expect(await h().sessions.listLive(acct, t(5))).toEqual([newer, older]);
      expect(await h().sessions.deleteOthers(acct, newer.idHash)).toBe(2); // the older and the ended one
      expect(await h().sessions.listLive(acct, t(5))).toEqual([newer]);
      expect(await h().sessions.listLive(other, t(5))).toEqual([theirs]);
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
