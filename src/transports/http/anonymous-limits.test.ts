import { afterEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../../app.ts';
import { call, createTestApp, expectError, TEST_RATE_LIMITS } from '../../../test/support/test-app.ts';
import { REGISTRATION } from '../../../test/support/oauth-code.ts';
import { ANONYMOUS_PATHS } from './anonymous-limits.ts';

const LIMITS = { ...TEST_RATE_LIMITS, anonymousPerMinute: 2 };

/** A request to a path anyone may ask, as it is asked (the authorization server's three by POST). */
function askFor(path: (typeof ANONYMOUS_PATHS)[number], network: string): [string, RequestInit] {
  const headers = { 'x-forwarded-for': network };
  if (path === '/oauth/register')
    return [path, { ...REGISTRATION, headers: { ...headers, ...REGISTRATION.headers } }];
  if (path === '/oauth/token' || path === '/oauth/revoke')
    return [
      path,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'client_id=itc_nobody&token=nope&grant_type=refresh_token&refresh_token=nope',
      },
    ];
  return [path.replace('*', 'google/callback'), { headers }];
}

// Decision 0122: the limit was added after the routes of the four OAuth endpoints, which answered before it ran, so
// none of them was limited at all.
describe('anonymous requests are limited per client network', () => {
  let app: App | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await app?.close();
    app = undefined;
  });

  it('on every path anyone may ask without signing in', async () => {
    app = await createTestApp({ config: { trustProxy: true, rateLimits: LIMITS } });
    const a = app;
    const refused = await Promise.all(
      ANONYMOUS_PATHS.map(async (path, i) => {
        const network = `203.0.113.${String(i + 1)}`;
        for (let n = 0; n < 2; n++) expect((await call(a, ...askFor(path, network))).status).not.toBe(429);
        const res = await call(a, ...askFor(path, network));
        return res.status === 429 && res.headers.get('retry-after') !== null ? undefined : path;
      }),
    );
    expect(refused.filter((p) => p !== undefined)).toEqual([]);
  });

  it('a refusal at the OAuth endpoints is one a browser-based client can read (CORS)', async () => {
    app = await createTestApp({ config: { trustProxy: true, rateLimits: LIMITS } });
    const [path, init] = askFor('/oauth/token', '192.0.2.9');
    const headers = new Headers(init.headers);
    headers.set('origin', 'https://client.example');
    const ask = () => call(app!, path, { ...init, headers });
    await ask();
    await ask();
    const res = await ask();
    expect(res.status).toBe(429);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('and registrations per hour as well as per minute', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    app = await createTestApp({ config: { trustProxy: true, rateLimits: LIMITS } });
    const register = () => call(app!, ...askFor('/oauth/register', '198.51.100.7'));
    expect((await register()).status).toBe(201);
    expect((await register()).status).toBe(201);
    await expectError(await register(), 429, 'rate_limited');
    vi.setSystemTime(Date.now() + 61_000);
    // The minute has passed: the network may ask again, but not register again within the hour.
    expect((await call(app, ...askFor('/signin', '198.51.100.7'))).status).toBe(200);
    const res = await register();
    await expectError(res, 429, 'rate_limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(60);
    vi.setSystemTime(Date.now() + 3_600_000);
    expect((await register()).status).toBe(201);
  });
});
