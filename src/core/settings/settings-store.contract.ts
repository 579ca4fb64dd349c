import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import { newAccount } from '../accounts/account-store.contract.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import { INSTANCE_SCOPE, KEY_CHECK_SETTING, type SettingsStore } from './settings-store.ts';

const now = new Date('2030-01-01T00:00:00Z');

export function settingsStoreContract(
  stores: () => { readonly settings: SettingsStore; readonly accounts: AccountStore },
): void {
  const store = () => stores().settings;
  describe('SettingsStore contract', () => {
    // Decision 0117: an account's settings hold its triage profile — correspondents' addresses, the person's notes.
    it('an account’s settings are deleted with the account; the instance’s and other accounts’ stay', async () => {
      const [gone, kept] = [newAccount(), newAccount()];
      for (const a of [gone, kept]) {
        await stores().accounts.create(a);
        await store().set(a.id, 'triageProfile', { notes: a.email }, now);
      }
      const check = (await store().get(INSTANCE_SCOPE, KEY_CHECK_SETTING)) ?? 'a check value';
      await store().set(INSTANCE_SCOPE, KEY_CHECK_SETTING, check, now);
      expect(await stores().accounts.delete(gone.id)).toBe(true);
      expect(await store().get(gone.id, 'triageProfile')).toBeUndefined();
      expect(await store().get(kept.id, 'triageProfile')).toEqual({ notes: kept.email });
      expect(await store().get(INSTANCE_SCOPE, KEY_CHECK_SETTING)).toBe(check);
      // A write that raced the deletion (an agent's call authenticated just before it) is removed by the sweep.
      await store().set(gone.id, 'sendEnabled', true, now);
      expect(await store().deleteAccountless()).toBeGreaterThanOrEqual(1);
      expect(await store().get(gone.id, 'sendEnabled')).toBeUndefined();
      expect(await store().get(kept.id, 'triageProfile')).toEqual({ notes: kept.email });
      expect(await store().get(INSTANCE_SCOPE, KEY_CHECK_SETTING)).toBe(check);
    });

    it('round-trips JSON values per scope and key', async () => {
      const scope = newId('scope');
      const value = { a: [1, 'two', null, true], b: { c: 'é 日本語' } };
      await store().set(scope, 'k', value, now);
      expect(await store().get(scope, 'k')).toEqual(value);
      expect(await store().get(scope, 'other')).toBeUndefined();
      expect(await store().get(newId('scope'), 'k')).toBeUndefined();
    });

    it('overwrites with set and removes with delete', async () => {
      const scope = newId('scope');
      await store().set(scope, 'k', 1, now);
      await store().set(scope, 'k', 2, now);
      expect(await store().get(scope, 'k')).toBe(2);
      expect(await store().delete(scope, 'k')).toBe(true);
      expect(await store().delete(scope, 'k')).toBe(false);
      expect(await store().get(scope, 'k')).toBeUndefined();
    });

    it('setIfAbsent: exactly one of ten concurrent callers wins and its value stays', async () => {
      const scope = newId('scope');
      const wins = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store().setIfAbsent(scope, 'once', i, now)),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await store().get(scope, 'once')).toBe(wins.indexOf(true));
    });

    it('replace: compare-and-set on the value read, so of racing read-modify-writes none is lost', async () => {
      const scope = newId('scope');
      expect(await store().replace(scope, 'k', { n: 1 }, { n: 2 }, now)).toBe(false); // absent
      expect(await store().replace(scope, 'k', undefined, { n: 1 }, now)).toBe(true);
      expect(await store().replace(scope, 'k', undefined, { n: 9 }, now)).toBe(false); // present
      expect(await store().replace(scope, 'k', { n: 2 }, { n: 9 }, now)).toBe(false); // stale
      expect(await store().get(scope, 'k')).toEqual({ n: 1 });
      const bump = async () => {
        for (;;) {
          const seen = (await store().get(scope, 'k')) as { n: number };
          if (await store().replace(scope, 'k', seen, { n: seen.n + 1 }, now)) return;
        }
      };
      await Promise.all(Array.from({ length: 8 }, bump));
      expect(await store().get(scope, 'k')).toEqual({ n: 9 });
    });
  });
}
