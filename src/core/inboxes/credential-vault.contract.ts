import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../accounts/account-store.ts';
import type { MailCredential } from '../mail/mail-types.ts';
import type { CredentialVault } from './credential-vault.ts';
import type { InboxStore } from './inbox-store.ts';
import { newInbox, seedAccount } from './inbox-store.contract.ts';
import type { AccountId } from '../accounts/account.ts';
import type { InboxId } from './inbox.ts';

export interface CredentialVaultHarness {
  accounts: AccountStore;
  inboxes: InboxStore;
  vault: CredentialVault;
  /** What the database holds for the inbox, as text: never the plaintext. */
  stored(inboxId: InboxId): Promise<string | undefined>;
  /** Copies one inbox's stored value onto another's row, as someone with database access could. */
  copyStored(from: InboxId, to: InboxId): Promise<void>;
}

const at = new Date(Date.UTC(2030, 0, 1));

/** Mailbox credentials at rest: sealed, bound to their inbox, replaced and deleted as a whole. */
export function credentialVaultContract(h: () => CredentialVaultHarness): void {
  describe('CredentialVault contract', () => {
    async function inbox(): Promise<InboxId> {
      const i = newInbox(await seedAccount(h().accounts));
      await h().inboxes.create(i);
      return i.id;
    }
    const password: MailCredential = {
      kind: 'password',
      username: 'zoë@example.test',
      password: 'pässwörd-Ω 123',
    };
    const oauth: MailCredential = {
      kind: 'oauth',
      username: 'zoe@gmail.test',
      accessToken: 'ya29.token-value',
    };

    it('round-trips both kinds, and nothing is stored in the clear', async () => {
      const a = await inbox();
      await h().vault.put(a, password, at);
      expect(await h().vault.get(a)).toEqual(password);
      const stored = (await h().stored(a)) ?? '';
      expect(stored).not.toContain('pässwörd');
      expect(stored).not.toContain('zoë');
      const b = await inbox();
      await h().vault.put(b, oauth, at);
      expect(await h().vault.get(b)).toEqual(oauth);
      expect(await h().stored(b)).not.toContain('ya29');
    });

    it('a second put replaces the credential; delete removes it', async () => {
      const a = await inbox();
      await h().vault.put(a, password, at);
      await h().vault.put(a, { ...password, password: 'new one' }, at);
      expect(await h().vault.get(a)).toEqual({ ...password, password: 'new one' });
      await h().vault.delete(a);
      expect(await h().vault.get(a)).toBeUndefined();
      expect(await h().vault.get(await inbox())).toBeUndefined();
    });

    // InboxStore.markNeedsReconnect reads the vault's rows in its statement (decision 0038), so it is checked here,
    // where both are.
    it('an inbox is marked for reconnecting only while the credential written last was read before the refusal', async () => {
      const accountId = await seedAccount(h().accounts);
      const { id: a } = await h().inboxes.create(newInbox(accountId));
      const status = async () => (await h().inboxes.get(accountId, a))?.connectionStatus;
      const mark = (read: Date) => h().inboxes.markNeedsReconnect(accountId, a, 'refused', read, at);
      expect(await mark(at)).toBe(true); // no credential stored at all
      expect(await status()).toBe('needs_reconnect');
      await h().inboxes.update(accountId, a, { connectionStatus: 'connected' }, at);
      await h().vault.put(a, password, new Date(at.getTime() + 5_000));
      expect(await mark(new Date(at.getTime() + 4_999))).toBe(false); // read before the new one was written
      expect(await status()).toBe('connected');
      expect(await mark(new Date(at.getTime() + 5_000))).toBe(true); // the stored one was refused
      expect((await h().inboxes.get(accountId, a))?.lastError).toBe('refused');
      expect(await h().inboxes.markNeedsReconnect('acct_other' as AccountId, a, 'x', at, at)).toBe(false);
    });

    it('a sealed value copied onto another inbox does not open there', async () => {
      const a = await inbox();
      const b = await inbox();
      await h().vault.put(a, password, at);
      await h().vault.put(b, oauth, at);
      await h().copyStored(a, b);
      expect(await h().vault.get(b)).toBeUndefined();
      expect(await h().vault.get(a)).toEqual(password);
    });
  });
}
