import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { metadataDocumentFetcher } from '../../adapters/http/metadata-document-fetcher.ts';
import type { App } from '../../app.ts';
import { fixedClock } from '../../lib/clock.ts';
import { pkceChallenge, sha256Hex } from '../../lib/secret-token.ts';
import { call, createTestApp } from '../../../test/support/test-app.ts';
import { setUpOwner, type WebClient } from '../../../test/support/web-client.ts';

let app: App | undefined;
let metadataServer: Server | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  await new Promise<void>((r) => (metadataServer === undefined ? r() : metadataServer.close(() => r())));
  metadataServer = undefined;
});

const BASE = 'http://127.0.0.1:8787';
const RESOURCE = `${BASE}/mcp`;
const REDIRECT = 'http://127.0.0.1:9999/callback';
const VERIFIER = 'v'.repeat(43);

async function register(a: App, body: Record<string, unknown>) {
  const res = await call(a, '/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function publicClient(a: App): Promise<string> {
  const r = await register(a, {
    client_name: 'test-harness',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
    jwks_uri: 'ignored',
  });
  expect(r.status).toBe(201);
  return r.body['client_id'] as string;
}

function authorizeUrl(clientId: string, over: Record<string, string | undefined> = {}): string {
  const p: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: pkceChallenge(VERIFIER),
    code_challenge_method: 'S256',
    state: 'st-1',
    scope: 'mcp:tools',
    resource: RESOURCE,
    ...over,
  };
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(p)) if (v !== undefined) q.set(k, v);
  return `/oauth/authorize?${q.toString()}`;
}

async function getCode(
  browser: WebClient,
  clientId: string,
  over: Record<string, string | undefined> = {},
): Promise<string> {
  const start = await browser.get(authorizeUrl(clientId, over));
  const consent = start.headers.get('location')!;
  await browser.get(consent);
  const done = await browser.post('/oauth/consent', {
    request: new URL(consent, BASE).searchParams.get('request')!,
    decision: 'approve',
  });
  return new URL(done.headers.get('location')!).searchParams.get('code')!;
}

async function token(a: App, params: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await call(a, '/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, string> };
}

/** client_secret_basic sends the client id in the header only. */
const withoutClientId = (p: Record<string, string>) =>
  Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'client_id'));

const exchange = (clientId: string, code: string, over: Record<string, string> = {}) => ({
  grant_type: 'authorization_code',
  code,
  code_verifier: VERIFIER,
  redirect_uri: REDIRECT,
  client_id: clientId,
  resource: RESOURCE,
  ...over,
});

describe('discovery', () => {
  it('publishes RFC 9728 and RFC 8414 metadata with a byte-identical issuer', async () => {
    app = await createTestApp();
    const prm = (await (await call(app, '/.well-known/oauth-protected-resource/mcp')).json()) as Record<
      string,
      unknown
    >;
    const root = (await (await call(app, '/.well-known/oauth-protected-resource')).json()) as Record<
      string,
      unknown
    >;
    const as = (await (await call(app, '/.well-known/oauth-authorization-server')).json()) as Record<
      string,
      unknown
    >;
    expect(prm).toEqual(root);
    expect(prm).toMatchObject({
      resource: RESOURCE,
      authorization_servers: [BASE],
      scopes_supported: ['mcp:tools'],
    });
    expect(as).toMatchObject({
      issuer: BASE,
      authorization_endpoint: `${BASE}/oauth/authorize`,
      token_endpoint: `${BASE}/oauth/token`,
      registration_endpoint: `${BASE}/oauth/register`,
      revocation_endpoint: `${BASE}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });
});

describe('registration', () => {
  it('tolerates unknown metadata and refuses non-allowlisted redirect URIs', async () => {
    app = await createTestApp();
    expect(
      (
        await register(app, {
          redirect_uris: ['http://127.0.0.1:5/callback'],
          token_endpoint_auth_method: 'none',
          application_type: 'native',
          software_statement: 'x',
        })
      ).status,
    ).toBe(201);
    // The loopback callbacks real hosts use by default (redirect-policy.ts names each host).
    for (const uri of [
      'http://localhost:51234/oauth/callback', // mcp-remote
      'http://127.0.0.1:6276/oauth/callback', // Inspector CLI
      'http://localhost:6274/oauth/callback', // Inspector web
      'http://127.0.0.1:33418/', // VS Code
      'http://127.0.0.1/', // VS Code, any port
      'http://[::1]:8123/callback',
      'http://localhost:9/callback',
    ])
      expect(
        (await register(app, { redirect_uris: [uri], token_endpoint_auth_method: 'none' })).status,
        uri,
      ).toBe(201);
    for (const uri of [
      'https://evil.example/cb',
      'http://127.0.0.1:5/other',
      'http://10.0.0.1:5/callback',
      'http://evil.example/oauth/callback',
      'http://localhost.evil.example/callback',
      'http://127.0.0.1:5/callback?next=https://evil.example',
      'http://user@127.0.0.1:5/callback',
      'https://127.0.0.1:5/oauth/callback/extra',
      'javascript:alert(1)',
    ]) {
      const r = await register(app, { redirect_uris: [uri], token_endpoint_auth_method: 'none' });
      expect(r.status).toBe(400);
      expect(r.body['error']).toBe('invalid_redirect_uri');
    }
    expect((await register(app, { redirect_uris: ['https://claude.ai/api/mcp/auth_callback'] })).status).toBe(
      201,
    );
  });

  it('keeps a client name the person is shown free of controls, direction overrides and invisible characters', async () => {
    app = await createTestApp();
    // An override in a stranger's client name turned the rest of its line on the consent and agents pages around.
    const r = await register(app, {
      client_name: 'Claude\u202e\u2066 Desktop\u200b\u0085\u0007\r\n',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    expect([r.status, r.body['client_name']]).toEqual([201, 'Claude Desktop']);
  });

  it('shows a client’s home page as the URL parser reads it, never with a user name that poses as its host', async () => {
    app = await createTestApp();
    const uriOf = async (client_uri: string) => {
      const r = await register(app!, {
        client_uri,
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      });
      expect(r.status).toBe(201);
      return (await app!.services.oauth.clients.resolve(r.body['client_id'] as string))?.clientUri;
    };
    expect(await uriOf('https://claude.ai@evil.example/')).toBeNull();
    expect(await uriOf('https://user:pw@evil.example/')).toBeNull();
    expect(await uriOf('http://claude.ai/')).toBeNull();
    expect(await uriOf('https://cl\u0430ude.ai/x')).toBe('https://xn--clude-5ve.ai/x');
    expect(await uriOf('https://Claude.AI')).toBe('https://claude.ai/');
  });
});

describe('authorize: refused without redirecting', () => {
  it.each([
    ['an unknown client', (id: string) => authorizeUrl(`${id}x`)],
    [
      'an unregistered redirect_uri',
      (id: string) => authorizeUrl(id, { redirect_uri: 'http://127.0.0.1:9999/elsewhere' }),
    ],
    ['a missing redirect_uri', (id: string) => authorizeUrl(id, { redirect_uri: undefined })],
  ])('%s → an error page, not a redirect', async (_l, url) => {
    app = await createTestApp();
    const res = await call(app, url(await publicClient(app)));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });
});

describe('authorize: errors redirected to the client with state and iss', () => {
  it.each([
    ['missing PKCE', { code_challenge: undefined }, 'invalid_request'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['missing resource', { resource: undefined }, 'invalid_target'],
    ['a foreign resource', { resource: 'https://other.example/mcp' }, 'invalid_target'],
    ['a foreign scope', { scope: 'admin' }, 'invalid_scope'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
  ])('%s → %s', async (_l, over, error) => {
    app = await createTestApp();
    const res = await call(app, authorizeUrl(await publicClient(app), over));
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin + to.pathname).toBe(REDIRECT);
    expect(to.searchParams.get('error')).toBe(error);
    expect(to.searchParams.get('state')).toBe('st-1');
    expect(to.searchParams.get('iss')).toBe(BASE);
  });

  it('deny → access_denied with state and iss', async () => {
    app = await createTestApp();
    const browser = await setUpOwner(app);
    const start = await browser.get(authorizeUrl(await publicClient(app)));
    const consent = start.headers.get('location')!;
    await browser.get(consent);
    const done = await browser.post('/oauth/consent', {
      request: new URL(consent, BASE).searchParams.get('request')!,
      decision: 'deny',
    });
    const to = new URL(done.headers.get('location')!);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      error: 'access_denied',
      state: 'st-1',
      iss: BASE,
    });
  });
});

describe('token endpoint', () => {
  it('wrong verifier, wrong redirect_uri, foreign resource, other client → exact errors', async () => {
    app = await createTestApp();
    const browser = await setUpOwner(app);
    const id = await publicClient(app);
    const other = await publicClient(app);
    const cases: [Record<string, string>, number, string][] = [
      [{ code_verifier: 'w'.repeat(43) }, 400, 'invalid_grant'],
      [{ redirect_uri: 'http://127.0.0.1:1/callback' }, 400, 'invalid_grant'],
      [{ resource: 'https://other.example/mcp' }, 400, 'invalid_target'],
      [{ client_id: other }, 400, 'invalid_grant'],
      [{ code_verifier: 'short' }, 400, 'invalid_request'],
    ];
    for (const [over, status, error] of cases) {
      const code = await getCode(browser, id);
      const r = await token(app, exchange(id, code, over));
      expect([r.status, r.body['error']]).toEqual([status, error]);
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
    const r = await token(app, { ...exchange(id, await getCode(browser, id)), resource: '' });
    expect(r.body['error']).toBe('invalid_target');
  });

  it('a replayed code fails and revokes the tokens it produced', async () => {
    app = await createTestApp();
    const browser = await setUpOwner(app);
    const id = await publicClient(app);
    const code = await getCode(browser, id);
    const ok = await token(app, exchange(id, code));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp:tools' });
    const again = await token(app, exchange(id, code));
    expect([again.status, again.body['error']]).toEqual([400, 'invalid_grant']);
    const mcp = await call(app, '/mcp', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ok.body['access_token']!}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(mcp.status).toBe(401);
    const refresh = await token(app, {
      grant_type: 'refresh_token',
      refresh_token: ok.body['refresh_token']!,
      client_id: id,
    });
    expect(refresh.body['error']).toBe('invalid_grant');
  });

  it('a code sent twice at the same moment leaves no working token, whichever request finishes first', async () => {
    app = await createTestApp();
    const browser = await setUpOwner(app);
    const id = await publicClient(app);
    const seen: string[] = [];
    for (let round = 0; round < 10; round++) {
      const code = await getCode(browser, id);
      const both = await Promise.all([token(app, exchange(id, code)), token(app, exchange(id, code))]);
      seen.push(both.map((r) => r.status).join('+'));
      // At most one got tokens; whatever it got no longer works.
      expect(both.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
      for (const r of both) {
        if (r.status !== 200) {
          expect(r.body['error']).toBe('invalid_grant');
          continue;
        }
        const mcp = await call(app, '/mcp', {
          method: 'POST',
          headers: {
            authorization: `Bearer ${r.body['access_token']!}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        });
        expect(mcp.status).toBe(401);
      }
    }
    expect(seen.length).toBe(10);
  });

  it('an expired access token → 401 with the challenge; an expired code → invalid_grant', async () => {
    const clock = fixedClock(new Date('2030-01-01T00:00:00Z'));
    app = await createTestApp({ overrides: { clock } });
    const browser = await setUpOwner(app);
    const id = await publicClient(app);
    const ok = await token(app, exchange(id, await getCode(browser, id)));
    const stale = await getCode(browser, id);
    clock.advance(3_600_000 + 1);
    const res = await call(app, '/mcp', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ok.body['access_token']!}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('realm="mcp"');
    expect((await token(app, exchange(id, stale))).body['error']).toBe('invalid_grant');
  });

  it('an access token issued for another resource is refused on /mcp with the challenge', async () => {
    app = await createTestApp();
    await setUpOwner(app);
    const account = (await app.stores.accounts.findByEmail('owner@example.test'))!;
    const now = app.clock.now();
    const grant = {
      id: 'grant_foreign',
      accountId: account.id,
      clientId: 'itc_x',
      scope: ['mcp:tools'],
      resource: 'https://other.example/mcp',
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
      powers: null,
      inboxes: null,
    };
    await app.stores.grants.saveCode({
      codeHash: 'c_foreign',
      clientId: 'itc_x',
      accountId: account.id,
      redirectUri: REDIRECT,
      codeChallenge: 'x'.repeat(43),
      scope: ['mcp:tools'],
      resource: grant.resource,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 60_000),
      powers: null,
      inboxes: null,
    });
    const access = 'ita_foreignresourcetokenforthetest000000000000';
    await app.stores.grants.createGrant(
      grant,
      [
        {
          hash: sha256Hex(access),
          kind: 'access',
          grantId: grant.id,
          createdAt: now,
          expiresAt: new Date(now.getTime() + 3_600_000),
        },
      ],
      'c_foreign',
    );
    const res = await call(app, '/mcp', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${access}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('scope="mcp:tools"');
  });

  it('unsupported grant and unknown client answer the RFC codes', async () => {
    app = await createTestApp();
    expect(
      (await token(app, { grant_type: 'password', client_id: await publicClient(app) })).body['error'],
    ).toBe('unsupported_grant_type');
    const unknown = await token(app, { grant_type: 'authorization_code', client_id: 'itc_nope', code: 'x' });
    expect([unknown.status, unknown.body['error']]).toEqual([401, 'invalid_client']);
  });

  it('answers 402 payment_required when the trial has ended', async () => {
    const clock = fixedClock(new Date('2030-01-01T00:00:00Z'));
    app = await createTestApp({ overrides: { clock } });
    const browser = await setUpOwner(app);
    const id = await publicClient(app);
    await app.services.accounts.setPlan('owner@example.test', 'trial', { trialDays: 0 }); // the trial ends now
    const r = await token(app, exchange(id, await getCode(browser, id)));
    expect([r.status, r.body['error']]).toEqual([402, 'payment_required']);
  });

  it('confidential clients must authenticate the way they registered (client_secret_basic)', async () => {
    app = await createTestApp();
    const browser = await setUpOwner(app);
    const reg = await register(app, {
      client_name: 'test-harness',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const id = reg.body['client_id'] as string;
    const secret = reg.body['client_secret'] as string;
    expect(secret).toMatch(/^itcs_/);
    const basic = (s: string) => ({ authorization: `Basic ${Buffer.from(`${id}:${s}`).toString('base64')}` });
    const noId = withoutClientId(exchange(id, await getCode(browser, id)));
    const bad = await token(app, noId, basic('wrong'));
    expect([bad.status, bad.body['error']]).toEqual([401, 'invalid_client']);
    expect(bad.headers.get('www-authenticate')).toBe('Basic realm="oauth"');
    const noId2 = withoutClientId(exchange(id, await getCode(browser, id)));
    expect((await token(app, noId2, basic(secret))).status).toBe(200);
    expect((await token(app, exchange(id, await getCode(browser, id)))).body['error']).toBe('invalid_client');
  });
});

describe('Client ID Metadata Documents', () => {
  async function serveDocument(doc: (url: string) => unknown): Promise<string> {
    metadataServer = createServer((req, res) => {
      const url = `http://127.0.0.1:${String((metadataServer!.address() as AddressInfo).port)}${req.url ?? ''}`;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(doc(url.replace('http://', 'https://'))));
    });
    await new Promise<void>((r) => metadataServer!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${String((metadataServer.address() as AddressInfo).port)}/client.json`;
  }

  it('a document naming itself is used as the client', async () => {
    const httpUrl = await serveDocument((url) => ({
      client_id: url,
      client_name: 'Doc Client',
      redirect_uris: [REDIRECT],
    }));
    const real = metadataDocumentFetcher({ allowHttp: true, allowPrivateHosts: ['127.0.0.1'] });
    // The test server speaks http on loopback; the client id is its https twin, mapped back here.
    const fetcher = { fetch: (url: string) => real.fetch(url.replace('https://', 'http://')) };
    app = await createTestApp({ overrides: { clientMetadataFetcher: fetcher } });
    const browser = await setUpOwner(app);
    const clientId = httpUrl.replace('http://', 'https://');
    const start = await browser.get(authorizeUrl(clientId));
    expect(start.status).toBe(303);
    await browser.get(start.headers.get('location')!);
    expect(browser.lastHtml).toContain('Doc Client');
  });

  it('a document whose client_id is not its own URL is refused', async () => {
    const httpUrl = await serveDocument(() => ({
      client_id: 'https://someone-else.example/client.json',
      client_name: 'Impostor',
      redirect_uris: [REDIRECT],
    }));
    const real = metadataDocumentFetcher({ allowHttp: true, allowPrivateHosts: ['127.0.0.1'] });
    app = await createTestApp({
      overrides: {
        clientMetadataFetcher: { fetch: (url) => real.fetch(url.replace('https://', 'http://')) },
      },
    });
    const res = await call(app, authorizeUrl(httpUrl.replace('http://', 'https://')));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('client_id must equal its URL');
  });

  it('a document on a private address is refused by the SSRF guard', async () => {
    const httpUrl = await serveDocument((url) => ({
      client_id: url,
      client_name: 'Doc Client',
      redirect_uris: [REDIRECT],
    }));
    const guarded = metadataDocumentFetcher({ allowHttp: true }); // no private-host allowance
    app = await createTestApp({
      overrides: {
        clientMetadataFetcher: { fetch: (url) => guarded.fetch(url.replace('https://', 'http://')) },
      },
    });
    const res = await call(app, authorizeUrl(httpUrl.replace('http://', 'https://')));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('private or reserved address');
  });
});
