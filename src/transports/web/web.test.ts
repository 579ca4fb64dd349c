import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import { fixedClock } from '../../lib/clock.ts';
import { createTestApp } from '../../../test/support/test-app.ts';
import { signInFor } from './session.ts';
import { createKeyViaPage, invitedAccount, setUpOwner, WebClient } from '../../../test/support/web-client.ts';

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('first run', () => {
  it('the setup link creates the owner, signs them in, and cannot be used again', async () => {
    app = await createTestApp();
    const token = await app.services.accounts.issueSetupLink();
    const web = new WebClient(app);
    expect((await web.get(`/setup?token=${token}`)).status).toBe(200);
    const res = await web.post('/setup', {
      token,
      email: 'Owner@Example.test',
      password: 'correct horse battery',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/settings?welcome=1');
    expect((await web.get('/settings')).status).toBe(200);
    expect(web.lastHtml).toContain('owner@example.test');
    const again = new WebClient(app);
    expect((await again.get(`/setup?token=${token}`)).status).toBe(410);
    expect(again.lastHtml).toContain('already set up');
  });

  it('one link makes one account, however many setups are sent with it at once', async () => {
    // Each setup checked the link, made its account (hashing the password takes a while), then deleted the link:
    // six sent at once made two or more accounts.
    const one = await createTestApp();
    app = one;
    const token = await one.services.accounts.issueSetupLink();
    const webs = Array.from({ length: 6 }, () => new WebClient(one));
    for (const web of webs) await web.get(`/setup?token=${token}`);
    const answers = await Promise.all(
      webs.map((web, i) =>
        web.post('/setup', {
          token,
          email: `owner${String(i)}@example.test`,
          password: 'correct horse battery',
        }),
      ),
    );
    expect(answers.filter((r) => r.status === 303)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 410)).toHaveLength(5);
    const made = await Promise.all(
      webs.map((_, i) => one.stores.accounts.findByEmail(`owner${String(i)}@example.test`)),
    );
    expect(made.filter((a) => a !== undefined)).toHaveLength(1);
  });

  it('refuses a wrong or expired link, and a short password', async () => {
    const clock = fixedClock(new Date('2030-01-01T00:00:00Z'));
    app = await createTestApp({ overrides: { clock } });
    const token = await app.services.accounts.issueSetupLink();
    const web = new WebClient(app);
    expect((await web.get('/setup?token=wrong')).status).toBe(410);
    await web.get(`/setup?token=${token}`);
    const weak = await web.post('/setup', { token, email: 'o@example.test', password: 'short' });
    expect(weak.status).toBe(400);
    expect(web.lastHtml).toContain('Use at least 10 characters.');
    clock.advance(60 * 60 * 1000);
    expect((await web.get(`/setup?token=${token}`)).status).toBe(410);
    expect(web.lastHtml).toContain('expired');
  });
});

describe('sign-in', () => {
  it('signs out and back in; the old session stops working', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    const oldSession = new Map(web.cookies);
    await web.get('/settings');
    expect((await web.post('/signout', {})).status).toBe(303);
    expect((await web.get('/settings')).headers.get('location')).toBe('/signin?next=%2Fsettings');
    const replay = new WebClient(app);
    for (const [k, v] of oldSession) replay.cookies.set(k, v);
    expect((await replay.get('/settings')).status).toBe(303);
    await web.get('/signin');
    const res = await web.post('/signin', {
      email: 'owner@example.test',
      password: 'correct horse battery',
      next: '/settings/advanced',
    });
    expect(res.headers.get('location')).toBe('/settings/advanced');
  });

  it('refuses open redirects after sign-in', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    await web.post('/signout', {});
    await web.get('/signin');
    const res = await web.post('/signin', {
      email: 'owner@example.test',
      password: 'correct horse battery',
      next: '//evil.example/x',
    });
    expect(res.headers.get('location')).toBe('/settings');
  });

  // Found by the fuzz run of 2026-11-27 (seed 636088): a 13,631-character address behind sign-in was answered with a
  // redirect whose Location header (the address, encoded again) no HTTP client would read.
  it('fuzz run of 2026-11-27, seed 636088: a very long address is sent to sign-in with a header clients can read', async () => {
    app = await createTestApp();
    const web = new WebClient(app);
    const query = `GM=${'x'.repeat(6000)}&oQa=${'%F0%9D%95%8F'.repeat(600)}`;
    const long = await web.get(`/waiting?${query}`);
    expect(long.status).toBe(303);
    expect(long.headers.get('location')).toBe('/signin?next=%2Fwaiting');
    expect(signInFor(new URL(`http://localhost/${'y'.repeat(5000)}`))).toBe('/signin');
    // A way back of ordinary length is kept whole, query and all.
    const short = await web.get(`/waiting?${'a'.repeat(1000)}=1`);
    expect(short.headers.get('location')).toBe(
      `/signin?next=${encodeURIComponent(`/waiting?${'a'.repeat(1000)}=1`)}`,
    );
  });

  it('limits failed sign-ins per account with a clear message, also for the right password', async () => {
    app = await createTestApp();
    await setUpOwner(app);
    const web = new WebClient(app);
    await web.get('/signin');
    for (let i = 0; i < 5; i++) {
      expect(
        (await web.post('/signin', { email: 'owner@example.test', password: `wrong ${String(i)}` })).status,
      ).toBe(401);
    }
    const blocked = await web.post('/signin', {
      email: 'owner@example.test',
      password: 'correct horse battery',
    });
    expect(blocked.status).toBe(429);
    expect(web.lastHtml).toMatch(/Too many failed sign-ins\. Try again in \d+ minutes?\./);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  // Decision 0025: failures from elsewhere cannot lock the owner out of a browser that signed in before.
  it('a stranger failing with the owner’s address does not lock out the owner’s known browser', async () => {
    app = await createTestApp();
    const owner = await setUpOwner(app);
    await owner.post('/signout', {});
    await owner.get('/signin');
    await owner.post('/signin', { email: 'owner@example.test', password: 'correct horse battery' });
    expect(owner.cookies.get('it_device')).toMatch(/^[a-z0-9]{24}\.[\w-]{43}$/);
    await owner.post('/signout', {});

    const stranger = new WebClient(app);
    await stranger.get('/signin');
    const tries: number[] = [];
    for (let i = 0; i < 8; i++)
      tries.push(
        (await stranger.post('/signin', { email: 'owner@example.test', password: `guess ${String(i)}` }))
          .status,
      );
    expect(tries).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // The stranger is locked out even with the right password; the owner's browser is not.
    expect(
      (await stranger.post('/signin', { email: 'owner@example.test', password: 'correct horse battery' }))
        .status,
    ).toBe(429);
    await owner.get('/signin');
    const res = await owner.post('/signin', {
      email: 'owner@example.test',
      password: 'correct horse battery',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/settings');
  });

  it('a known browser has a budget of its own; a forged or another account’s device token is no one’s', async () => {
    app = await createTestApp();
    const owner = await setUpOwner(app);
    await owner.post('/signout', {});
    await owner.get('/signin');
    await owner.post('/signin', { email: 'owner@example.test', password: 'correct horse battery' });
    const device = owner.cookies.get('it_device')!;
    await owner.post('/signout', {});
    await owner.get('/signin');
    const tries: number[] = [];
    for (let i = 0; i < 6; i++)
      tries.push(
        (await owner.post('/signin', { email: 'owner@example.test', password: `typo ${String(i)}` })).status,
      );
    expect(tries).toEqual([401, 401, 401, 401, 401, 429]);

    // Another account locked by strangers: the owner's device token does not speak for it, nor does a forged one.
    await invitedAccount(app, 'friend@example.test');
    const stranger = new WebClient(app);
    await stranger.get('/signin');
    for (let i = 0; i < 5; i++)
      await stranger.post('/signin', { email: 'friend@example.test', password: `guess ${String(i)}` });
    for (const token of [device, `${'a'.repeat(24)}.${'b'.repeat(43)}`]) {
      const other = new WebClient(app);
      other.cookies.set('it_device', token);
      await other.get('/signin');
      expect(
        (await other.post('/signin', { email: 'friend@example.test', password: 'another long passphrase' }))
          .status,
      ).toBe(429);
    }
  });

  it('session cookie is HttpOnly, SameSite=Lax, and Secure with the __Host- prefix on https', async () => {
    app = await createTestApp({ config: { baseUrl: 'https://triage.example.com' } });
    const token = await app.services.accounts.issueSetupLink();
    const web = new WebClient(app);
    await web.get(`/setup?token=${token}`);
    const res = await web.request('/setup', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        _csrf: web.csrf,
        token,
        email: 'o@example.test',
        password: 'correct horse battery',
      }),
    });
    const session = res.headers.getSetCookie().find((c) => c.startsWith('__Host-it_session='));
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).toMatch(/Secure/);
    expect(session).toMatch(/Path=\//);
  });
});

describe('CSRF', () => {
  it('a form post without the token is 403 and changes nothing', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    await web.get('/settings/advanced');
    const res = await web.post('/settings/advanced/keys', { name: 'sneaky' }, { csrf: null });
    expect(res.status).toBe(403);
    const account = await app.stores.accounts.findByEmail('owner@example.test');
    expect(await app.stores.apiKeys.list(account!.id)).toEqual([]);
  });

  it('a cross-site request with the right cookies cannot create a key', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    await web.get('/settings/advanced');
    const token = web.csrf;
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }]) {
      expect(
        (await web.post('/settings/advanced/keys', { name: 'sneaky' }, { csrf: token, headers })).status,
      ).toBe(403);
    }
    const account = await app.stores.accounts.findByEmail('owner@example.test');
    expect(await app.stores.apiKeys.list(account!.id)).toEqual([]);
  });
});

describe('API keys page', () => {
  it('shows a new key exactly once, lists it by last four, and revokes it', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    const key = await createKeyViaPage(web, 'Laptop');
    expect(key).toMatch(/^itk_[a-z0-9]{40}$/);
    await web.get('/settings/advanced');
    expect(web.lastHtml).not.toContain(key);
    expect(web.lastHtml).toContain(`itk_…${key.slice(-4)}`);
    expect(web.lastHtml).toContain('Laptop');
    const account = await app.stores.accounts.findByEmail('owner@example.test');
    const [stored] = await app.stores.apiKeys.list(account!.id);
    await web.post(`/settings/advanced/keys/${stored!.id}/revoke`, {});
    await web.get('/settings/advanced');
    expect(web.lastHtml).toContain('revoked');
  });

  it('enforces plan limits: trial 1 active key, pro 3', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    await createKeyViaPage(web, 'one');
    await web.get('/settings/advanced');
    const refused = await web.post('/settings/advanced/keys', { name: 'two' });
    expect(refused.headers.get('location')).toBe('/settings/advanced?error=limit');
    await web.get('/settings/advanced?error=limit');
    expect(web.lastHtml).toContain('Your trial plan allows 1 active key.');
    await app.services.accounts.setPlan('owner@example.test', 'pro');
    await createKeyViaPage(web, 'two');
    await createKeyViaPage(web, 'three');
    await web.get('/settings/advanced');
    expect((await web.post('/settings/advanced/keys', { name: 'four' })).headers.get('location')).toBe(
      '/settings/advanced?error=limit',
    );
  });
});

describe('more accounts', () => {
  it('an invitation creates a separate account once; accounts never see each other', async () => {
    app = await createTestApp();
    const owner = await setUpOwner(app);
    const friend = await invitedAccount(app, 'friend@example.test');
    await friend.get('/settings');
    expect(friend.lastHtml).toContain('friend@example.test');
    expect(friend.lastHtml).not.toContain('owner@example.test');
    await createKeyViaPage(owner, 'owner key');
    await friend.get('/settings/advanced');
    expect(friend.lastHtml).not.toContain('owner key');
  });

  it('open sign-up is off unless the operator enables it', async () => {
    app = await createTestApp();
    expect((await new WebClient(app).get('/signup')).status).toBe(404);
    await app.close();
    app = await createTestApp({ config: { openSignup: true } });
    const web = new WebClient(app);
    await web.get('/signup');
    expect(
      (await web.post('/signup', { email: 'new@example.test', password: 'a long enough passphrase' })).status,
    ).toBe(303);
    // An address that looks like that one, with a character nobody sees in it, is no address (decision 0106).
    const other = new WebClient(app);
    await other.get('/signup');
    for (const email of ['new\u200b@example.test', '\u202enew@example.test'])
      expect((await other.post('/signup', { email, password: 'a long enough passphrase' })).status).toBe(400);
  });
});

describe('deleting an account', () => {
  it('needs the password and the typed word, then removes keys and sessions', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    const key = await createKeyViaPage(web);
    await web.get('/settings/delete');
    expect(
      (await web.post('/settings/delete', { password: 'wrong password!', confirm: 'delete' })).status,
    ).toBe(400);
    expect(
      (await web.post('/settings/delete', { password: 'correct horse battery', confirm: 'nope' })).status,
    ).toBe(400);
    expect(
      (await web.post('/settings/delete', { password: 'correct horse battery', confirm: 'delete' })).status,
    ).toBe(200);
    expect(await app.stores.accounts.findByEmail('owner@example.test')).toBeUndefined();
    expect(await app.services.apiKeys.verify(key)).toBeUndefined();
    expect((await web.get('/settings')).status).toBe(303);
  });
});

describe('pages', () => {
  // Decision 0122: the authorization server's error page is a page too, but its route came before the pages'
  // middleware, which therefore never ran for it.
  it.each(['/signin', '/oauth/authorize?client_id=itc_nobody', '/reset?token=nope', '/invite?token=nope'])(
    'send strict security headers: %s',
    async (path) => {
      app = await createTestApp();
      const res = await new WebClient(app).get(path);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
      expect(res.headers.get('cache-control')).toBe('no-store');
      // At an http address there is no https to hold a browser to.
      expect(res.headers.get('strict-transport-security')).toBeNull();
    },
  );

  // Decision 0135.
  it.each(['/signin', '/oauth/authorize?client_id=itc_nobody'])(
    'at an https address, tell the browser to come back only over https: %s',
    async (path) => {
      app = await createTestApp({ config: { baseUrl: 'https://triage.example.com' } });
      const res = await new WebClient(app).get(path);
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000');
    },
  );

  it('every page a signed-in person opens sends them too', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    const pages = [
      '/settings',
      '/settings/activity',
      '/settings/agents',
      '/settings/browsers',
      '/settings/delete',
      '/settings/password',
      '/settings/preferences',
      '/inboxes',
      '/waiting',
      '/connect/imap?token=nope',
      '/oauth/consent?request=nope',
      '/signup',
      '/signin/code',
    ];
    const missing: string[] = [];
    let checked = 0;
    for (const path of pages) {
      const res = await web.get(path);
      if (!(res.headers.get('content-type') ?? '').includes('text/html')) continue;
      checked++;
      if (!(res.headers.get('content-security-policy') ?? '').includes("frame-ancestors 'none'"))
        missing.push(`${path} (${String(res.status)})`);
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(pages.length - 2); // /signup and /signin/code may send a signed-in person on
  });
});

describe('middleware', () => {
  it('runs once per page request (one CSRF cookie, one session lookup)', async () => {
    app = await createTestApp();
    const res = await new WebClient(app).get('/settings');
    expect(res.headers.getSetCookie().filter((c) => c.startsWith('it_csrf='))).toHaveLength(1);
  });
});

describe('sign-in redirects', () => {
  it('bring the person back to the page they asked for, query string included', async () => {
    app = await createTestApp();
    await setUpOwner(app);
    const web = new WebClient(app);
    const res = await web.get('/settings/activity?x=1');
    expect(res.headers.get('location')).toBe('/signin?next=%2Fsettings%2Factivity%3Fx%3D1');
    await web.get('/signin?next=%2Fsettings%2Factivity%3Fx%3D1');
    const signedIn = await web.post('/signin', {
      email: 'owner@example.test',
      password: 'correct horse battery',
      next: '/settings/activity?x=1',
    });
    expect(signedIn.headers.get('location')).toBe('/settings/activity?x=1');
  });
});
