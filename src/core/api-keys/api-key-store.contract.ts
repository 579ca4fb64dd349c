import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import type { AccountId } from '../accounts/account.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import { seedAccount } from '../inboxes/inbox-store.contract.ts';
import type { ApiKeyId } from './api-key.ts';
import { EVERYTHING } from '../auth/allowed.ts';
import type { InboxId } from '../inboxes/inbox.ts';
import type { ApiKeyStore, NewApiKey } from './api-key-store.ts';

const at = (m: number) => new Date(Date.UTC(2030, 0, 1, 0, m));

function newKey(accountId: AccountId, n: number): NewApiKey {
  return {
    id: newId('key') as ApiKeyId,
    accountId,
    name: `Key ${String(n)}`,
    last4: 'ab12',
    hash: newId('hash'),
    createdAt: at(n),
    powers: null,
    inboxes: null,
  };
}

export function apiKeyStoreContract(h: () => { accounts: AccountStore; apiKeys: ApiKeyStore }): void {
  describe('ApiKeyStore contract', () => {
    it('creates up to the limit, lists newest first, finds active keys by hash', async () => {
      const acct = await seedAccount(h().accounts);
      const k1 = newKey(acct, 1);
      const k2 = newKey(acct, 2);
      expect((await h().apiKeys.createWithinLimit(k1, 2)).ok).toBe(true);
      expect((await h().apiKeys.createWithinLimit(k2, 2)).ok).toBe(true);
      expect(await h().apiKeys.createWithinLimit(newKey(acct, 3), 2)).toEqual({
        ok: false,
        error: 'limit_reached',
      });
      expect((await h().apiKeys.list(acct)).map((k) => k.id)).toEqual([k2.id, k1.id]);
      expect(await h().apiKeys.findActiveByHash(k1.hash)).toMatchObject({
        key: { id: k1.id, accountId: acct, revokedAt: null },
        account: { id: acct, plan: 'trial', paymentState: 'ok' },
      });
      expect(await h().apiKeys.findActiveByHash('nope')).toBeUndefined();
    });

    it('keeps what a key may do and where, and changes it only for an active key of the account (0141, 0142)', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const work = 'inbox_aaaaaaaaaaaaaaaaaaaa' as InboxId;
      const home = 'inbox_bbbbbbbbbbbbbbbbbbbb' as InboxId;
      const k = {
        ...newKey(acct, 1),
        powers: new Set(['tidy', 'draft'] as const),
        inboxes: new Set([work, home]),
      };
      await h().apiKeys.createWithinLimit(k, 3);
      const found = (await h().apiKeys.findActiveByHash(k.hash))?.key;
      expect(found?.powers).toEqual(new Set(['tidy', 'draft']));
      expect(found?.inboxes).toEqual(new Set([work, home]));
      expect(await h().apiKeys.setAllowed(other, k.id, EVERYTHING)).toBe(false);
      expect(await h().apiKeys.setAllowed(acct, k.id, { powers: new Set(), inboxes: new Set([home]) })).toBe(
        true,
      );
      const changed = (await h().apiKeys.findActiveByHash(k.hash))?.key;
      expect(changed?.powers).toEqual(new Set());
      expect(changed?.inboxes).toEqual(new Set([home]));
      expect(await h().apiKeys.setAllowed(acct, k.id, { powers: null, inboxes: new Set() })).toBe(true);
      expect((await h().apiKeys.list(acct))[0]).toMatchObject({ powers: null, inboxes: new Set() });
      expect(await h().apiKeys.setAllowed(acct, k.id, EVERYTHING)).toBe(true);
      expect((await h().apiKeys.list(acct))[0]).toMatchObject({ powers: null, inboxes: null });
      await h().apiKeys.revoke(acct, k.id, at(5));
      expect(await h().apiKeys.setAllowed(acct, k.id, { powers: new Set(['setup']), inboxes: null })).toBe(
        false,
      );
      expect((await h().apiKeys.list(acct))[0]?.powers).toBeNull();
    });

    it('never lets concurrent creates exceed the limit', async () => {
      const acct = await seedAccount(h().accounts);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, n) => h().apiKeys.createWithinLimit(newKey(acct, n), 3)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(3);
      expect((await h().apiKeys.list(acct)).filter((k) => k.revokedAt === null)).toHaveLength(3);
    });

    it('revokes once, frees a slot, and hides the key from lookups; other accounts cannot revoke', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const k = newKey(acct, 1);
      await h().apiKeys.createWithinLimit(k, 1);
      expect(await h().apiKeys.revoke(other, k.id, at(5))).toBe(false);
      expect(await h().apiKeys.revoke(acct, k.id, at(5))).toBe(true);
      expect(await h().apiKeys.revoke(acct, k.id, at(6))).toBe(false);
      expect(await h().apiKeys.findActiveByHash(k.hash)).toBeUndefined();
      expect((await h().apiKeys.createWithinLimit(newKey(acct, 2), 1)).ok).toBe(true);
      expect(await h().apiKeys.revokeAll(acct, at(7))).toBe(1);
    });

    it('records last use', async () => {
      const acct = await seedAccount(h().accounts);
      const k = newKey(acct, 1);
      await h().apiKeys.createWithinLimit(k, 1);
      await h().apiKeys.touch(k.id, at(9));
      expect((await h().apiKeys.list(acct))[0]?.lastUsedAt).toEqual(at(9));
    });
  });
}
