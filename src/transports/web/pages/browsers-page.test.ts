import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../../app.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import { OWNER, setUpOwner, WebClient } from '../../../../test/support/web-client.ts';

// Settings → Signed-in browsers (decision 0067): what is signed in to the account, and every other one signed out.
describe('the signed-in browsers page', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('lists the browsers signed in, the asking one marked, and signs out all the others', async () => {
    app = await createTestApp();
    const here = await setUpOwner(app);
    // Another browser, whose user agent is text it chose: shown as text.
    const elsewhere = new WebClient(app, { 'user-agent': '<img src=x onerror=alert(1)> Other/1.0' });
    await elsewhere.get('/signin');
    expect(
      (await elsewhere.post('/signin', { email: OWNER.email, password: OWNER.password, next: '/settings' }))
        .status,
    ).toBe(303);

    expect((await here.get('/settings')).status).toBe(200);
    expect(here.lastHtml).toContain('href="/settings/browsers"');
    expect((await here.get('/settings/browsers')).status).toBe(200);
    expect(here.lastHtml).toContain('&lt;img src=x onerror=alert(1)&gt; Other/1.0');
    expect(here.lastHtml).not.toContain('<img src=x');
    expect(here.lastHtml).toContain('(this browser)');
    expect(here.lastHtml).toContain('Sign out the 1 other browser');

    expect((await here.post('/settings/browsers/sign-out-others', {}, { csrf: null })).status).toBe(403);
    await here.get('/settings/browsers');
    const done = await here.post('/settings/browsers/sign-out-others', {});
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/settings/browsers?signedOut=1');
    expect((await elsewhere.get('/settings')).status).toBe(303);
    expect((await here.get('/settings/browsers?signedOut=1')).status).toBe(200);
    expect(here.lastHtml).toContain('Signed out 1 other browser.');
    expect(here.lastHtml).toContain('No other browser is signed in.');
  });
});
