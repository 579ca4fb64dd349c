import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import type { AccountId, PaymentState, Plan } from '../accounts/account.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import { newAccount } from '../accounts/account-store.contract.ts';
import { agentAccess } from '../accounts/plan.ts';
import type { Inbox, InboxId } from './inbox.ts';
import type { InboxStore, NewInbox } from './inbox-store.ts';

/** Before the trials of `newAccount`'s accounts end (2030-01-15). */
const NOW = new Date('2030-01-01T00:00:00Z');

export interface InboxStoreHarness {
  accounts: AccountStore;
  inboxes: InboxStore;
}

export async function seedAccount(accounts: AccountStore): Promise<AccountId> {
  const a = newAccount();
  await accounts.create(a);
  return a.id;
}

export function newInbox(accountId: AccountId, overrides: Partial<NewInbox> = {}): NewInbox {
  return {
    id: newId('inbox') as InboxId,
    accountId,
    label: 'Work',
    provider: 'imap',
    email: 'me@example.test',
    imapHost: 'imap.example.test',
    imapPort: 993,
    imapUser: null,
    smtpHost: 'smtp.example.test',
    smtpPort: 587,
    isDemo: false,
    connectionStatus: 'not_connected',
    createdAt: new Date('2030-01-01T00:00:00Z'),
    ...overrides,
  };
}

/** An inbox that existed and was removed, and its account (for writes racing the removal: InboxGoneError). */
export async function seedRemovedInbox(
  h: InboxStoreHarness,
): Promise<{ accountId: AccountId; inboxId: InboxId }> {
  const accountId = await seedAccount(h.accounts);
  const inbox = newInbox(accountId);
  await h.inboxes.create(inbox);
  await h.inboxes.delete(accountId, inbox.id);
  return { accountId, inboxId: inbox.id };
}

export function inboxStoreContract(h: () => InboxStoreHarness): void {
  describe('InboxStore contract', () => {
    it('creates and reads back every field', async () => {
      const acct = await seedAccount(h().accounts);
      const i = newInbox(acct, {
        imapUser: 'me',
        smtpHost: 'smtp.example.test',
        smtpPort: 465,
        isDemo: true,
      });
      await h().inboxes.create(i);
      expect(await h().inboxes.get(acct, i.id)).toEqual({
        ...i,
        paused: false,
        lastError: null,
        senderName: null,
        credentialSetAt: null,
        updatedAt: i.createdAt,
      });
      expect(await h().inboxes.list(acct)).toMatchObject([{ smtpHost: 'smtp.example.test', smtpPort: 465 }]);
      const bare = newInbox(acct, { smtpHost: null, smtpPort: null });
      await h().inboxes.create(bare);
      expect(await h().inboxes.get(acct, bare.id)).toMatchObject({ smtpHost: null, smtpPort: null });
    });

    it('adds an inbox only within the account’s limit, however many are added at once', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      await h().inboxes.create(newInbox(other));
      const results = await Promise.all(
        Array.from({ length: 12 }, () => h().inboxes.createWithinLimit(newInbox(acct), 3)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(3);
      expect(results.flatMap((r) => (r.ok ? [] : [r.error]))).toEqual(
        Array.from({ length: 9 }, () => 'limit_reached'),
      );
      expect(await h().inboxes.list(acct)).toHaveLength(3);
      const made = results.find((r) => r.ok);
      expect(made?.ok === true && made.value.added).toBe(true);
      expect(made?.ok === true && (await h().inboxes.get(acct, made.value.inbox.id))).toEqual(
        made?.ok === true && made.value.inbox,
      );
      expect((await h().inboxes.createWithinLimit(newInbox(other), 2)).ok).toBe(true);
    });

    it('adds a mailbox once, however many adds of it arrive at once, and gives the others that inbox', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const sameAs = (existing: Inbox) => existing.email === 'twice@example.test';
      // Another account's inbox of that address is not this account's.
      await h().inboxes.create(newInbox(other, { email: 'twice@example.test' }));
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          h().inboxes.createWithinLimit(newInbox(acct, { email: 'twice@example.test' }), 5, sameAs),
        ),
      );
      const values = results.map((r) => (r.ok ? r.value : undefined));
      expect(values.filter((v) => v?.added === true)).toHaveLength(1);
      expect(values.filter((v) => v?.added === false)).toHaveLength(7);
      expect(new Set(values.map((v) => v?.inbox.id)).size).toBe(1);
      expect(await h().inboxes.list(acct)).toHaveLength(1);
      // Found before the limit is counted: a full account still answers with the inbox it has.
      const full = await seedAccount(h().accounts);
      const first = await h().inboxes.createWithinLimit(newInbox(full, { email: 'twice@example.test' }), 1);
      expect(
        await h().inboxes.createWithinLimit(newInbox(full, { email: 'twice@example.test' }), 1, sameAs),
      ).toEqual({
        ok: true,
        value: { inbox: first.ok && first.value.inbox, added: false },
      });
    });

    it('lists an account’s inboxes oldest first and nobody else’s', async () => {
      const a = await seedAccount(h().accounts);
      const b = await seedAccount(h().accounts);
      const first = newInbox(a, { createdAt: new Date('2030-01-01T00:00:00Z') });
      const second = newInbox(a, { createdAt: new Date('2030-01-02T00:00:00Z') });
      await h().inboxes.create(second);
      await h().inboxes.create(first);
      await h().inboxes.create(newInbox(b));
      expect((await h().inboxes.list(a)).map((i) => i.id)).toEqual([first.id, second.id]);
    });

    it('isolates tenants: another account’s inbox id behaves as unknown for get, update and delete', async () => {
      const owner = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const i = newInbox(owner);
      await h().inboxes.create(i);
      const now = new Date('2030-02-01T00:00:00Z');
      expect(await h().inboxes.get(other, i.id)).toBeUndefined();
      expect(await h().inboxes.update(other, i.id, { paused: true }, now)).toBeUndefined();
      expect(await h().inboxes.delete(other, i.id)).toBe(false);
      expect(await h().inboxes.get(owner, i.id)).toMatchObject({ paused: false });
    });

    it('patches only the given fields and stamps updatedAt', async () => {
      const acct = await seedAccount(h().accounts);
      const i = newInbox(acct);
      await h().inboxes.create(i);
      const now = new Date('2030-03-01T00:00:00Z');
      const updated = await h().inboxes.update(
        acct,
        i.id,
        { paused: true, connectionStatus: 'needs_reconnect', lastError: 'Login refused' },
        now,
      );
      expect(updated).toMatchObject({
        label: 'Work',
        paused: true,
        connectionStatus: 'needs_reconnect',
        lastError: 'Login refused',
        updatedAt: now,
      });
      expect(await h().inboxes.update(acct, i.id, { lastError: null }, now)).toMatchObject({
        lastError: null,
        paused: true,
      });
    });

    it('learns a sender name only while none is known, and keeps the one the person set', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const i = newInbox(acct);
      await h().inboxes.create(i);
      const now = new Date('2030-03-01T00:00:00Z');
      expect(await h().inboxes.learnSenderName(other, i.id, 'Mallory', now)).toBeUndefined();
      expect(await h().inboxes.get(acct, i.id)).toMatchObject({ senderName: null });
      expect(await h().inboxes.learnSenderName(acct, i.id, 'Ann Example', now)).toBe('Ann Example');
      expect(await h().inboxes.learnSenderName(acct, i.id, 'Someone Else', now)).toBe('Ann Example');
      await h().inboxes.update(acct, i.id, { senderName: '' }, now);
      expect(await h().inboxes.learnSenderName(acct, i.id, 'Ann Example', now)).toBe('');
      expect(await h().inboxes.get(acct, i.id)).toMatchObject({ senderName: '' });
      expect(await h().inboxes.update(acct, i.id, { senderName: 'Ann' }, now)).toMatchObject({
        senderName: 'Ann',
      });
    });

    it('keeps when a credential was given and the servers the person corrected, for its own account only', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const i = newInbox(acct, { connectionStatus: 'connected' });
      await h().inboxes.create(i);
      expect(await h().inboxes.get(acct, i.id)).toMatchObject({ credentialSetAt: null });
      const at = new Date('2030-03-02T08:00:00Z');
      const servers = {
        imapHost: 'mail.example.net',
        imapPort: 143,
        smtpHost: 'out.example.net',
        smtpPort: 465,
      };
      expect(await h().inboxes.update(other, i.id, { credentialSetAt: at, servers }, at)).toBeUndefined();
      expect(await h().inboxes.update(acct, i.id, { credentialSetAt: at, servers }, at)).toMatchObject({
        credentialSetAt: at,
        ...servers,
      });
      expect(await h().inboxes.get(acct, i.id)).toMatchObject({ credentialSetAt: at, ...servers });
      // What every node's watchers are compared with (sync-scheduler.ts).
      expect((await h().inboxes.listSyncable(NOW)).find((x) => x.id === i.id)).toMatchObject({
        credentialSetAt: at,
      });
    });

    it('counts every account’s inboxes by provider and state, paused first', async () => {
      const count = async (provider: string, state: string) =>
        (await h().inboxes.countByState()).find((r) => r.provider === provider && r.state === state)?.count ??
        0;
      const before = [
        await count('icloud', 'not_connected'),
        await count('icloud', 'paused'),
        await count('icloud', 'needs_reconnect'),
      ];
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const a = await h().inboxes.create(newInbox(acct, { provider: 'icloud' }));
      await h().inboxes.create(newInbox(other, { provider: 'icloud' }));
      const b = await h().inboxes.create(newInbox(other, { provider: 'icloud' }));
      await h().inboxes.update(acct, a.id, { paused: true }, new Date());
      await h().inboxes.update(other, b.id, { connectionStatus: 'needs_reconnect' }, new Date());
      const after = [
        await count('icloud', 'not_connected'),
        await count('icloud', 'paused'),
        await count('icloud', 'needs_reconnect'),
      ];
      expect(after.map((n, i) => n - (before[i] ?? 0))).toEqual([1, 1, 1]);
    });

    it('finds what background sync keeps fresh: connected or demo, not paused, any account', async () => {
      const acct = await seedAccount(h().accounts);
      const connected = await h().inboxes.create(newInbox(acct, { connectionStatus: 'connected' }));
      const demo = await h().inboxes.create(newInbox(acct, { isDemo: true }));
      const waiting = await h().inboxes.create(newInbox(acct));
      const paused = await h().inboxes.create(newInbox(acct, { connectionStatus: 'connected' }));
      await h().inboxes.update(acct, paused.id, { paused: true }, new Date());
      const listed = new Set((await h().inboxes.listSyncable(NOW)).map((i) => i.id));
      for (const i of [connected, demo]) {
        expect(listed.has(i.id)).toBe(true);
        expect((await h().inboxes.syncable(i.id, NOW))?.id).toBe(i.id);
      }
      for (const i of [waiting, paused]) {
        expect(listed.has(i.id)).toBe(false);
        expect(await h().inboxes.syncable(i.id, NOW)).toBeUndefined();
      }
    });

    // Decision 0124: an account whose agents are refused was kept in sync for good — its mail fetched, its mailbox
    // watched — though nothing could read it. The store's rule is agentAccess's, checked here case by case.
    it('keeps fresh only the inboxes of accounts whose agents may act, as agentAccess decides', async () => {
      const cases: { plan: Plan; trialEndsAt: Date | null; payment: PaymentState }[] = [];
      for (const plan of ['trial', 'pro'] as const)
        for (const trialEndsAt of [null, new Date(NOW.getTime() - 1), NOW, new Date(NOW.getTime() + 1)])
          for (const payment of ['ok', 'failed'] as const) cases.push({ plan, trialEndsAt, payment });
      const seen = [];
      for (const c of cases) {
        const acct = await seedAccount(h().accounts);
        await h().accounts.setPlan(acct, c.plan, c.trialEndsAt);
        const account = await h().accounts.setPaymentState(acct, c.payment);
        if (account === undefined) throw new Error('no account');
        const inbox = await h().inboxes.create(newInbox(acct, { connectionStatus: 'connected' }));
        seen.push({ c, inbox, allowed: agentAccess(account, NOW).allowed });
      }
      const listed = new Set((await h().inboxes.listSyncable(NOW)).map((i) => i.id));
      for (const { c, inbox, allowed } of seen) {
        expect({ ...c, listed: listed.has(inbox.id) }).toEqual({ ...c, listed: allowed });
        expect({ ...c, found: (await h().inboxes.syncable(inbox.id, NOW)) !== undefined }).toEqual({
          ...c,
          found: allowed,
        });
      }
      expect(seen.filter((s) => s.allowed).length).toBeGreaterThan(0);
      expect(seen.filter((s) => !s.allowed).length).toBeGreaterThan(0);
    });

    it('deletes, and deleting the account deletes its inboxes', async () => {
      const acct = await seedAccount(h().accounts);
      const i1 = newInbox(acct);
      const i2 = newInbox(acct);
      await h().inboxes.create(i1);
      await h().inboxes.create(i2);
      expect(await h().inboxes.delete(acct, i1.id)).toBe(true);
      expect(await h().inboxes.get(acct, i1.id)).toBeUndefined();
      await h().accounts.delete(acct);
      expect(await h().inboxes.list(acct)).toEqual([]);
    });
  });
}
