import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../app.ts';
import { createTestApp, NO_RATE_LIMITS } from '../../test/support/test-app.ts';
import { createKeyViaPage, setUpOwner, type WebClient } from '../../test/support/web-client.ts';

// Verified credentials are cached for a few seconds (core/auth/verified-cache.ts, decision 0010). Whatever the
// person does to a credential or an account must still apply to the very next agent request.
describe('a change to what a credential proves applies to the next agent request', () => {
  let app: App;
  let web: WebClient;
  let key: string;
  beforeEach(async () => {
    app = await createTestApp({ config: { rateLimits: NO_RATE_LIMITS } });
    web = await setUpOwner(app);
    await app.services.accounts.setPlan('owner@example.test', 'pro');
    key = await createKeyViaPage(web);
  });
  afterEach(async () => {
    await app.close();
  });

  const mcp = async (token: string) =>
    (
      await app.fetch(
        new Request(`${app.config.baseUrl}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        }),
      )
    ).status;
  const rest = async (token: string) =>
    (
      await app.fetch(
        new Request(`${app.config.baseUrl}/api/inboxes`, { headers: { authorization: `Bearer ${token}` } }),
      )
    ).status;
  const keyId = async () =>
    (await app.db.kysely.selectFrom('api_keys').select('id').executeTakeFirstOrThrow()).id;

  it('the cache is on: a revocation written behind the service’s back is not seen at once', async () => {
    // What makes the cases below meaningful: without the invalidation they would answer 200 too.
    expect(await mcp(key)).toBe(200);
    expect(await rest(key)).toBe(200);
    await app.db.kysely.updateTable('api_keys').set({ revoked_at: Date.now() }).execute();
    expect(await mcp(key)).toBe(200);
    expect(await rest(key)).toBe(200);
  });

  it('revoking the key on the API keys page', async () => {
    expect(await mcp(key)).toBe(200);
    expect(await rest(key)).toBe(200);
    await web.get('/settings/advanced');
    expect((await web.post(`/settings/advanced/keys/${await keyId()}/revoke`, {})).status).toBe(303);
    expect(await mcp(key)).toBe(401);
    expect(await rest(key)).toBe(401);
  });

  it('disconnecting every agent and key', async () => {
    expect(await mcp(key)).toBe(200);
    await web.get('/settings/agents');
    expect((await web.post('/settings/agents/disconnect-all', {})).status).toBe(303);
    expect(await mcp(key)).toBe(401);
  });

  it('a failed payment, and an ended trial', async () => {
    expect(await mcp(key)).toBe(200);
    await app.services.accounts.setPlan('owner@example.test', 'pro', { payment: 'failed' });
    expect(await mcp(key)).toBe(402);
    await app.services.accounts.setPlan('owner@example.test', 'pro', { payment: 'ok' });
    expect(await mcp(key)).toBe(200);
    await app.services.accounts.setPlan('owner@example.test', 'trial', { trialDays: 0 });
    expect(await mcp(key)).toBe(402);
  });

  it('deleting the account', async () => {
    expect(await mcp(key)).toBe(200);
    await web.get('/settings/delete');
    const deleted = await web.post('/settings/delete', {
      password: 'correct horse battery',
      confirm: 'delete',
    });
    expect(deleted.status).toBe(200);
    expect(await mcp(key)).toBe(401);
  });
});
