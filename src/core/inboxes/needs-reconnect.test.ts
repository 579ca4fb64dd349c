import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/support/test-app.ts';
import type { App } from '../../app.ts';
import { newInbox, seedAccount } from './inbox-store.contract.ts';
import type { CredentialVault } from './credential-vault.ts';

// A sync (or read, draft, send) that opened its session with the old credential and fails after the person connected
// again must not mark the inbox needs_reconnect: that would undo the reconnection it never saw (found through the
// Gmail faults test, where the first sync after a new sign-in failed with the revoked one).
describe('marking an inbox for reconnecting', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
  });

  it('marks it when the refused credential is the stored one, not when it was replaced after being read', async () => {
    app = await createTestApp();
    const accountId = await seedAccount(app.stores.accounts);
    const inbox = await app.stores.inboxes.create(newInbox(accountId, { connectionStatus: 'connected' }));
    const vault = (app.services.tools.inboxes as unknown as { deps: { vault: CredentialVault } }).deps.vault;
    const readAt = app.clock.now();
    const stored = new Date(readAt.getTime() + 1_000); // the person entered a new password a second later
    await vault.put(inbox.id, { kind: 'password', username: 'me', password: 'new' }, stored);
    const status = async () => (await app!.stores.inboxes.get(accountId, inbox.id))?.connectionStatus;

    await app.services.tools.inboxes.markNeedsReconnect(inbox, 'AUTHENTICATIONFAILED', readAt);
    expect(await status()).toBe('connected');
    await app.services.tools.inboxes.markNeedsReconnect(inbox, 'AUTHENTICATIONFAILED', stored);
    expect(await status()).toBe('needs_reconnect');
  });
});
