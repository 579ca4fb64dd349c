import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import type { AccountId } from '../accounts/account.ts';
import { seedAccount } from '../inboxes/inbox-store.contract.ts';
import type { Passkey, PasskeyStore } from './passkeys.ts';

const t = (m: number) => new Date(Date.UTC(2030, 0, 1, 0, m));
const passkey = (accountId: AccountId, m: number, counter = 0): Passkey => ({
  credentialId: newId('cred').replace(/_/g, '-'),
  accountId,
  publicKey: new Uint8Array([0xa5, 1, 2, 3, 0xff, 0]),
  counter,
  transports: ['internal', 'hybrid'],
  name: `Browser ${String(m)}`,
  createdAt: t(m),
  lastUsedAt: null,
});

export function passkeyStoreContract(h: () => { accounts: AccountStore; passkeys: PasskeyStore }): void {
  describe('PasskeyStore contract', () => {
    it('keeps a passkey as added, lists an account’s newest first, and refuses a credential id twice', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const older = passkey(acct, 1);
      const newer = passkey(acct, 2, 7);
      for (const p of [older, newer]) expect(await h().passkeys.add(p)).toBe(true);
      expect(await h().passkeys.add({ ...older, accountId: other })).toBe(false);
      expect(await h().passkeys.get(older.credentialId)).toEqual(older);
      expect(await h().passkeys.list(acct)).toEqual([newer, older]);
      expect(await h().passkeys.list(other)).toEqual([]);
      expect(await h().passkeys.get('nothing-of-the-kind')).toBeUndefined();
    });

    it('takes a later counter once, refuses an earlier or equal one, and zero only after zero', async () => {
      const acct = await seedAccount(h().accounts);
      const counting = passkey(acct, 1, 5);
      const synced = passkey(acct, 2, 0);
      for (const p of [counting, synced]) await h().passkeys.add(p);
      expect(await h().passkeys.recordUse(counting.credentialId, 5, t(3))).toBe(false);
      expect(await h().passkeys.recordUse(counting.credentialId, 4, t(3))).toBe(false);
      expect(await h().passkeys.recordUse(counting.credentialId, 0, t(3))).toBe(false);
      const both = await Promise.all([
        h().passkeys.recordUse(counting.credentialId, 6, t(4)),
        h().passkeys.recordUse(counting.credentialId, 6, t(4)),
      ]);
      expect(both.filter(Boolean)).toHaveLength(1);
      expect(await h().passkeys.get(counting.credentialId)).toMatchObject({ counter: 6, lastUsedAt: t(4) });
      expect(await h().passkeys.recordUse(synced.credentialId, 0, t(5))).toBe(true);
      expect(await h().passkeys.recordUse(synced.credentialId, 0, t(6))).toBe(true);
      expect(await h().passkeys.get(synced.credentialId)).toMatchObject({ counter: 0, lastUsedAt: t(6) });
      expect(await h().passkeys.recordUse('nothing-of-the-kind', 9, t(6))).toBe(false);
    });

    it('removes only the account’s own passkey', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const p = passkey(acct, 1);
      await h().passkeys.add(p);
      expect(await h().passkeys.remove(other, p.credentialId)).toBe(false);
      expect(await h().passkeys.remove(acct, p.credentialId)).toBe(true);
      expect(await h().passkeys.remove(acct, p.credentialId)).toBe(false);
      expect(await h().passkeys.get(p.credentialId)).toBeUndefined();
    });

    it('spends a challenge once, at once on many requests, and forgets it only after it ends', async () => {
      const hash = newId('challenge');
      const spent = await Promise.all(
        Array.from({ length: 8 }, () => h().passkeys.spendChallenge(hash, t(10))),
      );
      expect(spent.filter(Boolean)).toHaveLength(1);
      expect(await h().passkeys.deleteSpentChallenges(t(10))).toBe(0);
      expect(await h().passkeys.spendChallenge(hash, t(10))).toBe(false);
      expect(await h().passkeys.deleteSpentChallenges(t(11))).toBeGreaterThanOrEqual(1);
      expect(await h().passkeys.spendChallenge(hash, t(20))).toBe(true);
    });
  });
}
