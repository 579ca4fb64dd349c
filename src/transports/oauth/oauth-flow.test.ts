import { Client, StreamableHTTPClientTransport, UnauthorizedError, auth } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError as V1UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import { inProcessFetch } from '../../../test/support/mcp-clients.ts';
import { TestOAuthProvider } from '../../../test/support/oauth-client.ts';
import { createTestApp } from '../../../test/support/test-app.ts';
import { toolsListStatus } from '../../../test/support/tool-caller.ts';
import { setUpOwner, type WebClient } from '../../../test/support/web-client.ts';
import { fixedClock } from '../../lib/clock.ts';

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** Plays the person's browser: follows the authorize URL, approves on the consent page, returns the callback. */
async function approveInBrowser(
  browser: WebClient,
  authUrl: URL,
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  const start = await browser.get(authUrl.pathname + authUrl.search);
  expect(start.status).toBe(303);
  const consent = start.headers.get('location')!;
  expect(consent).toMatch(/^\/oauth\/consent\?request=req_/);
  expect((await browser.get(consent)).status).toBe(200);
  expect(browser.lastHtml).toContain('test-harness');
  const requestId = new URL(consent, 'http://x').searchParams.get('request')!;
  const done = await browser.post('/oauth/consent', { request: requestId, decision });
  expect(done.status).toBe(302);
  return new URL(done.headers.get('location')!);
}

describe.each(['v2-modern', 'v2-legacy'] as const)('OAuth with the official v2 client (%s)', (era) => {
  it('401 → discovery → DCR → authorize → token → tool call → refresh (old token refused once the new pair is used) → revoke → 401', async () => {
    const clock = fixedClock(new Date('2026-11-25T12:00:00Z'));
    app = await createTestApp({ overrides: { clock } });
    const a = app;
    const browser = await setUpOwner(a);
    const serverUrl = new URL('/mcp', a.config.baseUrl);
    const fetch = inProcessFetch(a);
    const provider = new TestOAuthProvider();
    const client = new Client(
      { name: 'test-harness', version: '1.0.0' },
      era === 'v2-modern' ? { versionNegotiation: { mode: 'auto' } } : {},
    );

    await expect(
      client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const authUrl = provider.authUrl!;
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('resource')).toBe(`${a.config.baseUrl}/mcp`);
    expect(authUrl.searchParams.get('scope')).toBe('mcp:tools');

    const callback = await approveInBrowser(browser, authUrl);
    expect(callback.origin + callback.pathname).toBe('http://127.0.0.1:8765/callback');
    expect(callback.searchParams.get('state')).toBe(provider.lastState);
    expect(callback.searchParams.get('iss')).toBe(a.config.baseUrl);
    // The person's sign-in history shows the new way in (decision 0091).
    const owner = (await a.stores.accounts.findByEmail('owner@example.test'))!;
    expect((await a.stores.signInHistory.recent(owner.id, 1)).map((e) => e.kind)).toEqual([
      'agent_connected',
    ]);

    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch });
    await transport.finishAuth(callback.searchParams);
    const first = provider.tokensValue!;
    expect(first.access_token).toMatch(/^ita_/);
    expect(first.refresh_token).toMatch(/^itr_/);

    await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch }));
    expect(client.getProtocolEra()).toBe(era === 'v2-modern' ? 'modern' : 'legacy');
    const result = await client.callTool({ name: 'list_inboxes', arguments: {} });
    expect(result.isError ?? false).toBe(false);
    await client.close();

    // Refresh rotates: the SDK refreshes because the access token is now garbage.
    provider.tokensValue = { access_token: 'ita_garbage', refresh_token: first.refresh_token };
    expect(await auth(provider, { serverUrl, fetchFn: fetch })).toBe('AUTHORIZED');
    const second = provider.tokensValue;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const clientId = (provider.creds.values().next().value as { client_id: string }).client_id;
    const mcp = (token: string) => toolsListStatus(a.fetch, a.config.baseUrl, token);
    // The client got the new pair and used it: the old refresh token presented again afterwards is a stolen copy.
    // (Received before the rotation, or within a minute while the new pair is unused, it gets that pair again:
    // decision 0041.)
    expect(await mcp(second.access_token)).toBe(200);
    clock.advance(1);
    const reuse = await fetch(`${a.config.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token!,
        client_id: clientId,
      }),
    });
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });

    // Reuse revoked the whole sign-in: the newest tokens are dead too.
    expect(await mcp(second.access_token)).toBe(401);
  });
});

/** The SDKs drop their stored tokens on `invalid_grant`, as a client that keeps them on disk does. */
class ForgetfulOAuthProvider extends TestOAuthProvider {
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this.tokensValue = undefined;
    if (scope === 'all' || scope === 'client') this.creds.clear();
  }
}

// Found by a probe (decision 0041): an SDK client whose access token has expired refreshes once per request that got
// a 401. Six such requests at once sent six refreshes of one token: one was rotated, the other five counted as reuse
// and revoked the sign-in, and the SDK dropped its tokens on their invalid_grant.
describe.each(['v2-modern', 'v2-legacy'] as const)(
  'six tool calls at once with an expired token (%s)',
  (era) => {
    it('all succeed after one refresh, and the client keeps a pair that works', async () => {
      app = await createTestApp();
      const a = app;
      const browser = await setUpOwner(a);
      const serverUrl = new URL('/mcp', a.config.baseUrl);
      const fetch = inProcessFetch(a);
      const provider = new ForgetfulOAuthProvider();
      const transport = () => new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch });
      const client = new Client(
        { name: 'test-harness', version: '1.0.0' },
        era === 'v2-modern' ? { versionNegotiation: { mode: 'auto' } } : {},
      );
      await expect(client.connect(transport())).rejects.toBeInstanceOf(UnauthorizedError);
      await transport().finishAuth((await approveInBrowser(browser, provider.authUrl!)).searchParams);
      await client.connect(transport());
      const first = provider.tokensValue!;

      provider.tokensValue = { access_token: 'ita_expired', refresh_token: first.refresh_token };
      const results = await Promise.all(
        Array.from({ length: 6 }, () => client.callTool({ name: 'list_inboxes', arguments: {} })),
      );
      expect(results.map((r) => r.isError ?? false)).toEqual([false, false, false, false, false, false]);
      const kept = provider.tokensValue as { access_token: string; refresh_token?: string } | undefined;
      expect(kept?.refresh_token).toMatch(/^itr_/);
      expect(kept?.refresh_token).not.toBe(first.refresh_token);
      expect(await toolsListStatus(a.fetch, a.config.baseUrl, kept!.access_token)).toBe(200);
      expect((await client.callTool({ name: 'list_inboxes', arguments: {} })).isError ?? false).toBe(false);
      await client.close();
    });
  },
);

describe('OAuth with the official v1 client', () => {
  it('signs in, calls a tool, and loses access after revocation', async () => {
    app = await createTestApp();
    const a = app;
    const browser = await setUpOwner(a);
    const serverUrl = new URL('/mcp', a.config.baseUrl);
    const fetch = inProcessFetch(a);
    const provider = new TestOAuthProvider();
    const client = new V1Client({ name: 'test-harness', version: '1.0.0' });
    await expect(
      client.connect(new V1Transport(serverUrl, { authProvider: provider, fetch })),
    ).rejects.toBeInstanceOf(V1UnauthorizedError);
    const callback = await approveInBrowser(browser, provider.authUrl!);
    const transport = new V1Transport(serverUrl, { authProvider: provider, fetch });
    await transport.finishAuth(callback.searchParams.get('code')!);
    await client.connect(new V1Transport(serverUrl, { authProvider: provider, fetch }));
    expect((await client.callTool({ name: 'list_inboxes', arguments: {} })).isError ?? false).toBe(false);
    await client.close();

    const clientId = (provider.creds.values().next().value as { client_id: string }).client_id;
    // The person disconnects it from Settings: the sign-in history says so (decision 0091).
    await browser.get('/settings/agents');
    expect((await browser.post('/settings/agents/disconnect', { client_id: clientId })).status).toBe(303);
    const owner = (await a.stores.accounts.findByEmail('owner@example.test'))!;
    expect((await a.stores.signInHistory.recent(owner.id, 2)).map((e) => e.kind)).toEqual([
      'agent_disconnected',
      'agent_connected',
    ]);
    const revoke = await fetch(`${a.config.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: provider.tokensValue!.refresh_token!, client_id: clientId }),
    });
    expect(revoke.status).toBe(200);
    const res = await fetch(serverUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${provider.tokensValue!.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
  });
});

describe('OAuth with a Client ID Metadata Document (v2 client, no registration)', () => {
  it('uses the document URL as client_id and completes the flow', async () => {
    const { createServer } = await import('node:http');
    const { metadataDocumentFetcher } = await import('../../adapters/http/metadata-document-fetcher.ts');
    const docs = createServer((req, res) => {
      const port = (docs.address() as { port: number }).port;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          client_id: `https://127.0.0.1:${String(port)}${req.url ?? ''}`,
          client_name: 'test-harness',
          redirect_uris: ['http://127.0.0.1:8765/callback'],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
    try {
      const real = metadataDocumentFetcher({ allowHttp: true, allowPrivateHosts: ['127.0.0.1'] });
      app = await createTestApp({
        overrides: {
          clientMetadataFetcher: { fetch: (url) => real.fetch(url.replace('https://', 'http://')) },
        },
      });
      const a = app;
      const browser = await setUpOwner(a);
      const serverUrl = new URL('/mcp', a.config.baseUrl);
      const fetch = inProcessFetch(a);
      const provider = new TestOAuthProvider();
      provider.clientMetadataUrl = `https://127.0.0.1:${String((docs.address() as { port: number }).port)}/client.json`;
      const client = new Client(
        { name: 'test-harness', version: '1.0.0' },
        { versionNegotiation: { mode: 'auto' } },
      );
      await expect(
        client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch })),
      ).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.authUrl!.searchParams.get('client_id')).toBe(provider.clientMetadataUrl);
      const callback = await approveInBrowser(browser, provider.authUrl!);
      await new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch }).finishAuth(
        callback.searchParams,
      );
      await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch }));
      expect((await client.callTool({ name: 'list_inboxes', arguments: {} })).isError ?? false).toBe(false);
      await client.close();
    } finally {
      await new Promise<void>((r) => docs.close(() => r()));
    }
  });
});
