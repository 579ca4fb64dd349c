import { describe, expect, it } from 'vitest';
import { randomToken } from '../../lib/random.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import type { InboxStore } from './inbox-store.ts';
import { newInbox, seedAccount } from './inbox-store.contract.ts';
import type { SecretLink, SecretLinkStore } from './secret-link-store.ts';

const at = (m: number) => new Date(Date.UTC(2030, 0, 1, 0, m));

/** Capability links (the password form, attachment downloads): found while live and unused, used once. */
export function secretLinkStoreContract(
  h: () => { accounts: AccountStore; inboxes: InboxStore; links: SecretLinkStore },
): void {
  describe('SecretLinkStore contract', () => {
    async function created(o: Partial<Omit<SecretLink, 'attempts'>> = {}) {
      const accountId = await seedAccount(h().accounts);
      const inbox = newInbox(accountId);
      await h().inboxes.create(inbox);
      const link: Omit<SecretLink, 'attempts'> = {
        idHash: randomToken(64),
        purpose: 'imap_capture',
        accountId,
        inboxId: inbox.id,
        payload: { email: 'zoë@example.test', nested: [1, 'two'] },
        createdAt: at(0),
        expiresAt: at(30),
        ...o,
      };
      await h().links.create(link);
      return link;
    }

    it('finds a live link of its purpose with every field; not another purpose, not once expired', async () => {
      const l = await created();
      expect(await h().links.find(l.idHash, 'imap_capture', at(1))).toEqual({ ...l, attempts: 0 });
      expect(await h().links.find(l.idHash, 'attachment', at(1))).toBeUndefined();
      expect(await h().links.find(l.idHash, 'imap_capture', at(30))).toBeUndefined();
      const download = await created({ purpose: 'attachment', inboxId: null, payload: null });
      expect(await h().links.find(download.idHash, 'attachment', at(1))).toMatchObject({ inboxId: null });
    });

    it('counts failed uses', async () => {
      const l = await created();
      expect(await h().links.countAttempt(l.idHash)).toBe(1);
      expect(await h().links.countAttempt(l.idHash)).toBe(2);
      expect(await h().links.find(l.idHash, 'imap_capture', at(1))).toMatchObject({ attempts: 2 });
    });

    it('of 20 concurrent consumes exactly one succeeds; a used or expired link is neither found nor used again', async () => {
      const l = await created();
      const used = await Promise.all(Array.from({ length: 20 }, () => h().links.consume(l.idHash, at(1))));
      expect(used.filter(Boolean)).toHaveLength(1);
      expect(await h().links.find(l.idHash, 'imap_capture', at(2))).toBeUndefined();
      const old = await created();
      expect(await h().links.consume(old.idHash, at(30))).toBe(false);
    });

    // Decision 0123: removed by the hourly sweep, not by the account's next link (its last ones stayed for good).
    it('the sweep removes the links that expired before a time, used or not, and only those', async () => {
      // Earlier than any other test's links, so the counts are this test's alone.
      const long = (month: number) => new Date(Date.UTC(2001, month, 1));
      const expired = await created({ createdAt: long(0), expiresAt: long(0) });
      const used = await created({ createdAt: long(0), expiresAt: long(1) });
      expect(await h().links.consume(used.idHash, long(0))).toBe(true);
      const live = await created({ createdAt: long(0), expiresAt: long(5) });
      expect(await h().links.deleteExpired(long(0))).toBe(0);
      expect(await h().links.deleteExpired(long(2))).toBe(2);
      expect(await h().links.deleteExpired(long(2))).toBe(0);
      expect(await h().links.find(live.idHash, 'imap_capture', long(3))).toBeDefined();
      expect(await h().links.find(expired.idHash, 'imap_capture', long(0))).toBeUndefined();
    });
  });
}
