import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import { fixedClock } from '../../lib/clock.ts';
import {
  bearer,
  call,
  createTestApp,
  expectError,
  TEST_RATE_LIMITS,
} from '../../../test/support/test-app.ts';
import { createKeyViaPage, setUpOwner } from '../../../test/support/web-client.ts';

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('REST authentication (contract §5, §7)', () => {
  it('no key → 401 missing_api_key', async () => {
    app = await createTestApp();
    const res = await call(app, '/api/inboxes');
    await expectError(res, 401, 'missing_api_key');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api"');
  });

  it.each(['itk_wrong', 'ita_someaccesstoken', 'garbage', `itk_${'a'.repeat(40)}`])(
    'a wrong key (%s) → 401 invalid_api_key with the exact challenge, pointing to Settings > Advanced',
    async (token) => {
      app = await createTestApp();
      const res = await call(app, '/api/inboxes', bearer(token));
      const description = await expectError(res, 401, 'invalid_api_key');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
      expect(description).toContain('Settings > Advanced');
    },
  );

  it('a malformed Authorization header is an invalid key, not a missing one', async () => {
    app = await createTestApp();
    await expectError(
      await call(app, '/api/inboxes', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }),
      401,
      'invalid_api_key',
    );
  });

  it('a valid key works; once revoked it fails on the very next request', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    const key = await createKeyViaPage(web);
    const ok = await call(app, '/api/inboxes', bearer(key));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      inboxes: [{ label: 'Demo inbox', provider: 'google', isDemo: true, connectionStatus: 'connected' }],
    });
    const account = await app.stores.accounts.findByEmail('owner@example.test');
    const [stored] = await app.stores.apiKeys.list(account!.id);
    await web.get('/settings/advanced');
    await web.post(`/settings/advanced/keys/${stored!.id}/revoke`, {});
    const res = await call(app, '/api/inboxes', bearer(key));
    await expectError(res, 401, 'invalid_api_key');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
  });
});

describe('key management is for the owner session only', () => {
  it('an API key creating or revoking keys → 403 owner_session_required', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    await app.services.accounts.setPlan('owner@example.test', 'pro');
    const key = await createKeyViaPage(web);
    const create = await call(app, '/api/keys', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"name":"x"}',
    });
    await expectError(create, 403, 'owner_session_required');
    const account = await app.stores.accounts.findByEmail('owner@example.test');
    const [stored] = await app.stores.apiKeys.list(account!.id);
    await expectError(
      await call(app, `/api/keys/${stored!.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${key}` },
      }),
      403,
      'owner_session_required',
    );
    expect(await app.stores.apiKeys.list(account!.id)).toHaveLength(1);
  });

  it('the signed-in owner creates (shown once), lists and revokes keys as JSON; plan limit answers 409', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    await web.get('/settings');
    const json = { 'content-type': 'application/json', 'x-csrf-token': web.csrf };
    const created = await web.request('/api/keys', {
      method: 'POST',
      headers: json,
      body: '{"name":"script"}',
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string; key: string; last4: string };
    expect(body.key).toMatch(/^itk_[a-z0-9]{40}$/);
    expect(body.last4).toBe(body.key.slice(-4));
    await expectError(
      await web.request('/api/keys', { method: 'POST', headers: json, body: '{"name":"more"}' }),
      409,
      'key_limit_reached',
    );
    const listed = (await (await web.request('/api/keys')).json()) as { keys: Record<string, unknown>[] };
    expect(JSON.stringify(listed)).not.toContain(body.key);
    expect((await web.request(`/api/keys/${body.id}`, { method: 'DELETE', headers: json })).status).toBe(204);
    await expectError(
      await web.request(`/api/keys/${body.id}`, { method: 'DELETE', headers: json }),
      404,
      'key_not_found',
    );
  });

  it('a plan that shrinks keeps the keys made before; the Advanced page says when a new one can be made', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    await app.services.accounts.setPlan('owner@example.test', 'pro');
    const keys = [
      await createKeyViaPage(web, 'one'),
      await createKeyViaPage(web, 'two'),
      await createKeyViaPage(web, 'three'),
    ];
    await app.services.accounts.setPlan('owner@example.test', 'trial', { trialDays: 14 });
    for (const key of keys) {
      // Accepted: the inbox is what is not found, not the key.
      await expectError(
        await call(app, '/api/inboxes/inbox_none/draft', {
          method: 'POST',
          headers: { ...bearer(key).headers, 'content-type': 'application/json' },
          body: JSON.stringify({ to: 'a@example.org', subject: 's', text: 't' }),
        }),
        404,
        'inbox_not_found',
      );
    }
    const page = await (await web.get('/settings/advanced')).text();
    expect(page.replace(/\s+/g, ' ')).toContain(
      '3 of 1 active key on the trial plan. The keys made before the plan changed keep working; a new one can be made once 3 are revoked.',
    );
  });

  it('a session request without the CSRF header is refused', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    const res = await web.request('/api/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"x"}',
    });
    expect(res.status).toBe(403);
  });
});

describe('plans: 402 payment_required on agent routes', () => {
  it('after the trial ends, and when payment failed; the person’s pages keep working and say why', async () => {
    const clock = fixedClock(new Date('2030-01-01T00:00:00Z'));
    app = await createTestApp({ overrides: { clock } });
    const web = await setUpOwner(app);
    const key = await createKeyViaPage(web);
    expect((await call(app, '/api/inboxes', bearer(key))).status).toBe(200);
    clock.advance(14 * 86_400_000);
    const description = await expectError(
      await call(app, '/api/inboxes', bearer(key)),
      402,
      'payment_required',
    );
    expect(description).toContain('trial ended on 2030-01-15');
    expect((await web.get('/settings')).status).toBe(200);
    expect(web.lastHtml).toContain(
      'Agents cannot use this account right now, and its inboxes are not kept in sync',
    );

    await app.services.accounts.setPlan('owner@example.test', 'pro', { payment: 'failed' });
    expect(
      await expectError(await call(app, '/api/inboxes', bearer(key)), 402, 'payment_required'),
    ).toContain('payment');
    await app.services.accounts.setPlan('owner@example.test', 'pro', { payment: 'ok' });
    expect((await call(app, '/api/inboxes', bearer(key))).status).toBe(200);
  });
});

describe('rate limits: 429 rate_limited with Retry-After', () => {
  it('per API key on /api', async () => {
    app = await createTestApp({
      config: {
        rateLimits: { ...TEST_RATE_LIMITS, apiPerMinute: 3 },
      },
    });
    const key = await createKeyViaPage(await setUpOwner(app));
    for (let i = 0; i < 3; i++) expect((await call(app, '/api/inboxes', bearer(key))).status).toBe(200);
    const res = await call(app, '/api/inboxes', bearer(key));
    await expectError(res, 429, 'rate_limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('per client address on unauthenticated pages', async () => {
    app = await createTestApp({
      config: {
        trustProxy: true,
        rateLimits: { ...TEST_RATE_LIMITS, anonymousPerMinute: 2 },
      },
    });
    const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
    expect((await call(app, '/signin', from('203.0.113.7'))).status).toBe(200);
    expect((await call(app, '/signin', from('203.0.113.7'))).status).toBe(200);
    const res = await call(app, '/signin', from('203.0.113.7'));
    await expectError(res, 429, 'rate_limited');
    expect(res.headers.get('retry-after')).not.toBeNull();
    expect((await call(app, '/signin', from('198.51.100.1'))).status).toBe(200);
  });

  it('per network for IPv6, and whatever the spelling of an address (decision 0111)', async () => {
    app = await createTestApp({
      config: {
        trustProxy: true,
        rateLimits: { ...TEST_RATE_LIMITS, anonymousPerMinute: 2 },
      },
    });
    const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
    // A host picks the low 64 bits of its address at will: each new address is not a new client.
    expect((await call(app, '/signin', from('2001:db8:1:2::1'))).status).toBe(200);
    expect((await call(app, '/signin', from('2001:db8:1:2::2'))).status).toBe(200);
    await expectError(await call(app, '/signin', from('2001:db8:1:2:abcd::3')), 429, 'rate_limited');
    expect((await call(app, '/signin', from('2001:db8:1:3::1'))).status).toBe(200);
    // A port a load balancer appends, or IPv4 written inside IPv6, is the same client.
    expect((await call(app, '/signin', from('203.0.113.8:50001'))).status).toBe(200);
    expect((await call(app, '/signin', from('::ffff:203.0.113.8'))).status).toBe(200);
    await expectError(await call(app, '/signin', from('203.0.113.8:50003')), 429, 'rate_limited');
  });

  it('guessing keys from the addresses of one IPv6 network is limited as from one address', async () => {
    app = await createTestApp({ config: { trustProxy: true } });
    const from = (i: number) => ({ 'x-forwarded-for': `2001:db8:7:7::${i.toString(16)}` });
    for (let i = 0; i < 30; i++)
      expect(
        (
          await call(app, '/api/inboxes', {
            headers: { ...from(i), authorization: `Bearer itk_guess${String(i)}` },
          })
        ).status,
      ).toBe(401);
    await expectError(
      await call(app, '/api/inboxes', { headers: { ...from(99), authorization: 'Bearer itk_guess' } }),
      429,
      'rate_limited',
    );
  });

  it('guessing keys from one address is limited before any key is checked', async () => {
    app = await createTestApp({ config: { trustProxy: true } });
    const from = { 'x-forwarded-for': '203.0.113.9' };
    for (let i = 0; i < 30; i++)
      expect(
        (
          await call(app, '/api/inboxes', {
            headers: { ...from, authorization: `Bearer itk_guess${String(i)}` },
          })
        ).status,
      ).toBe(401);
    await expectError(
      await call(app, '/api/inboxes', { headers: { ...from, authorization: 'Bearer itk_guess' } }),
      429,
      'rate_limited',
    );
  });
});
