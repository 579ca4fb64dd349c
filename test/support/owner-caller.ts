import type { App } from '../../src/app.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import type { Caller } from '../../src/transports/mcp/tool-context.ts';
import { setUpOwner } from './web-client.ts';

/** The owner of a fresh app, set up through the pages, as an API-key caller of the tool registry directly. */
export async function ownerCaller(app: App): Promise<Caller> {
  await setUpOwner(app);
  const account = (await app.stores.accounts.findByEmail('owner@example.test'))!;
  return {
    principal: {
      accountId: account.id,
      credential: { kind: 'api_key', id: 'key_test' },
      scopes: ['mcp:tools'],
      powers: null,
      inboxes: null,
      expiresAt: null,
    },
    account,
    log: silentLogger,
  };
}
