import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../../app.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import { OWNER, setUpOwner, WebClient } from '../../../../test/support/web-client.ts';
import { fixedClock } from '../../../lib/clock.ts';
import { totpCode, totpStep } from '../../../lib/totp.ts';

// Settings → Signed-in browsers → Sign-in history (decision 0091): what happened to the person's way in, from which
// address and browser, and a warning when the right password came with a wrong code that nothing explains.
describe('the sign-in history', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const clock = fixedClock(new Date());
  const HOME = { 'user-agent': 'Home/1.0', 'x-forwarded-for': '198.51.100.7' };
  const STRANGER = {
    'user-agent': '<img src=x onerror=alert(1)> Stranger/1.0',
    'x-forwarded-for': '203.0.113.66',
  };
  const WARNING = 'someone entered your password correctly but not the code from your app';
  const flat = (page: string) => page.replace(/\s+/g, ' ');
  /** The kinds of the history's rows, newest first. */
  const kinds = (page: string) => [...page.matchAll(/<tr data-kind="([a-z_]+)"/g)].map((m) => m[1]);

  /** A browser past the password (the code page), or signed in when the account has no second factor. */
  async function withPassword(a: App, headers: Record<string, string>, password: string = OWNER.password) {
    const b = new WebClient(a, headers);
    await b.get('/signin');
    expect((await b.post('/signin', { email: OWNER.email, password })).status).toBe(303);
    return b;
  }

  it('lists each sign-in, refusal and change, newest first, and warns of a wrong code from a stranger', async () => {
    app = await createTestApp({ config: { trustProxy: true }, overrides: { clock } });
    const a = app;
    await setUpOwner(a);
    const wrong = new WebClient(a, STRANGER);
    await wrong.get('/signin');
    expect((await wrong.post('/signin', { email: OWNER.email, password: 'a guess at it' })).status).toBe(401);
    const home = await withPassword(a, HOME);
    await home.get('/settings/browsers');
    expect(kinds(home.lastHtml)).toEqual(['signed_in', 'wrong_password']);
    expect(home.lastHtml).toContain('203.0.113.66');
    expect(home.lastHtml).toContain('&lt;img src=x onerror=alert(1)&gt; Stranger/1.0');
    expect(home.lastHtml).not.toContain('<img src=x');
    expect(flat(home.lastHtml)).not.toContain(WARNING);

    // Two-step sign-in on, from home.
    await home.get('/settings/two-step');
    const begun = await home.post('/settings/two-step/begin', { password: OWNER.password });
    const secret = /class="setup-key">([A-Z2-7 ]+)</.exec(await begun.text())?.[1]?.replace(/ /g, '') ?? '';
    const code = () => totpCode(secret, totpStep(clock.now()));
    expect((await home.post('/settings/two-step/confirm', { code: code() })).status).toBe(200);

    // A stranger with the password, not the code.
    const stranger = await withPassword(a, STRANGER);
    await stranger.get('/signin/code');
    expect(
      (await stranger.post('/signin/code', { code: '000000' === code() ? '111111' : '000000' })).status,
    ).toBe(401);
    await home.get('/settings/browsers');
    expect(kinds(home.lastHtml)).toEqual([
      'wrong_code',
      'others_signed_out',
      'two_step_on',
      'signed_in',
      'wrong_password',
    ]);
    expect(flat(home.lastHtml)).toContain(WARNING);
    // And where the person lands, with the way to the history.
    await home.get('/settings');
    expect(flat(home.lastHtml)).toContain('Someone may know your password');
    expect(home.lastHtml).toContain('href="/settings/browsers#history"');

    // The person's own slip, made good at once, explains nothing of the stranger's.
    clock.advance(60_000);
    const laptop = await withPassword(a, HOME);
    await laptop.get('/signin/code');
    expect(
      (await laptop.post('/signin/code', { code: '000000' === code() ? '111111' : '000000' })).status,
    ).toBe(401);
    expect((await laptop.post('/signin/code', { code: code() })).status).toBe(303);
    await home.get('/settings/browsers');
    expect(kinds(home.lastHtml).slice(0, 2)).toEqual(['signed_in_with_code', 'wrong_code']);
    expect(flat(home.lastHtml)).toContain(WARNING);

    // A new password settles it; a slip after it, made good, does not warn again.
    await home.get('/settings/password');
    clock.advance(30_000);
    const changed = await home.post('/settings/password', {
      current: OWNER.password,
      code: code(),
      password: 'a new passphrase, long',
    });
    expect(changed.status).toBe(303);
    await home.get('/settings/browsers');
    expect(kinds(home.lastHtml)[0]).toBe('password_changed');
    expect(flat(home.lastHtml)).not.toContain(WARNING);
    await home.get('/settings');
    expect(flat(home.lastHtml)).not.toContain('Someone may know your password');
    clock.advance(60_000);
    const phone = await withPassword(a, HOME, 'a new passphrase, long');
    await phone.get('/signin/code');
    expect(
      (await phone.post('/signin/code', { code: '000000' === code() ? '111111' : '000000' })).status,
    ).toBe(401);
    expect((await phone.post('/signin/code', { code: code() })).status).toBe(303);
    await home.get('/settings/browsers');
    expect(kinds(home.lastHtml).slice(0, 2)).toEqual(['signed_in_with_code', 'wrong_code']);
    expect(flat(home.lastHtml)).not.toContain(WARNING);
    await home.get('/settings');
    expect(flat(home.lastHtml)).not.toContain('Someone may know your password');
  });

  it('tells the person, where they land, what was tried since their previous sign-in — not their own slips', async () => {
    app = await createTestApp({ config: { trustProxy: true }, overrides: { clock } });
    const a = app;
    const setUp = await setUpOwner(a);
    await withPassword(a, HOME);
    const told = (page: string) =>
      flat(/<div class="notice" role="status" data-attempts>[^]*?<\/div>/.exec(page)?.[0] ?? '');
    const signIn = async (headers: Record<string, string>, password: string, next?: string) => {
      const b = new WebClient(a, headers);
      await b.get('/signin');
      return {
        b,
        res: await b.post('/signin', { email: OWNER.email, password, ...(next !== undefined && { next }) }),
      };
    };
    for (const guess of ['guess one', 'guess two']) {
      clock.advance(60_000);
      expect((await signIn(STRANGER, guess)).res.status).toBe(401);
    }
    expect(
      (await signIn({ 'user-agent': 'curl/8', 'x-forwarded-for': '192.0.2.9' }, 'guess three')).res.status,
    ).toBe(401);
    clock.advance(60_000);
    const { b: home, res } = await signIn(HOME, OWNER.password);
    expect(res.headers.get('location')).toBe('/settings?signedin=1');
    await home.get('/settings?signedin=1');
    expect(told(home.lastHtml)).toContain(': 3 wrong passwords from 203.0.113.66 and one other address.');
    expect(told(home.lastHtml)).toContain('since your previous sign-in on');
    // Only the page the sign-in lands on says it.
    await home.get('/settings');
    expect(told(home.lastHtml)).toBe('');

    // The person's own slip on the way in is not news; nor is anything for the next sign-in after it was told.
    clock.advance(60_000);
    expect((await signIn(HOME, 'a typo')).res.status).toBe(401);
    clock.advance(30_000);
    const again = await signIn(HOME, OWNER.password);
    expect(again.res.headers.get('location')).toBe('/settings');
    await again.b.get('/settings?signedin=1');
    expect(told(again.b.lastHtml)).toBe('');

    // A sign-in on the way somewhere else goes there; the history keeps what was tried.
    clock.advance(60_000);
    expect((await signIn(STRANGER, 'guess four')).res.status).toBe(401);
    const elsewhere = await signIn(HOME, OWNER.password, '/settings/waiting');
    expect(elsewhere.res.headers.get('location')).toBe('/settings/waiting');
    // A browser whose session began without a sign-in (the owner's set-up) is told nothing, whatever its link says.
    await setUp.get('/settings?signedin=1');
    expect(told(setUp.lastHtml)).toBe('');
  });

  it('lists the API keys made and revoked, each a way in for an agent, from the console and the REST API', async () => {
    app = await createTestApp({ config: { trustProxy: true }, overrides: { clock } });
    const a = app;
    await setUpOwner(a);
    const home = await withPassword(a, HOME);
    await home.get('/settings/advanced');
    expect((await home.post('/settings/advanced/keys', { name: 'Laptop agent' })).status).toBeLessThan(400);
    const owner = (await a.stores.accounts.findByEmail(OWNER.email))!;
    const [key] = await a.services.apiKeys.list(owner.id);
    await home.get('/settings/advanced');
    expect((await home.post(`/settings/advanced/keys/${key!.id}/revoke`, {})).status).toBe(303);
    // The REST API, from the owner's session: recorded with that request's address.
    await home.get('/settings');
    const res = await home.request('/api/keys', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-csrf-token': home.csrf,
        'x-forwarded-for': '192.0.2.44',
      },
      body: JSON.stringify({ name: 'Script' }),
    });
    expect(res.status).toBe(201);
    await home.get('/settings/agents');
    expect((await home.post('/settings/agents/disconnect-all', {})).status).toBe(303);
    const recent = await a.stores.signInHistory.recent(owner.id, 4);
    expect(recent.map(({ kind, ip }) => ({ kind, ip }))).toEqual([
      { kind: 'every_api_key_revoked', ip: HOME['x-forwarded-for'] },
      { kind: 'api_key_created', ip: '192.0.2.44' },
      { kind: 'api_key_revoked', ip: HOME['x-forwarded-for'] },
      { kind: 'api_key_created', ip: HOME['x-forwarded-for'] },
    ]);
    await home.get('/settings/browsers');
    expect(home.lastHtml).toContain('Every API key revoked');
  });

  it('is the account’s own, and goes with the account', async () => {
    app = await createTestApp({ config: { trustProxy: true }, overrides: { clock } });
    const a = app;
    await setUpOwner(a);
    await withPassword(a, HOME);
    const owner = (await a.stores.accounts.findByEmail(OWNER.email))!;
    expect((await a.stores.signInHistory.recent(owner.id, 10)).map((e) => e.kind)).toEqual(['signed_in']);
    const issued = await a.services.accounts.issueInvitation('second@example.test');
    const second = new WebClient(a, HOME);
    await second.get(`/invite?token=${issued.ok ? issued.value : ''}`);
    await second.post('/invite', {
      token: issued.ok ? issued.value : '',
      email: 'second@example.test',
      password: 'another long passphrase',
    });
    await second.get('/settings/browsers');
    expect(kinds(second.lastHtml)).toEqual([]);
    expect(second.lastHtml).toContain('Nothing yet in the last 90 days.');
    // Deleting the account deletes its history (a foreign key).
    expect(await a.services.accounts.deleteAccount(owner.id, OWNER.password)).toMatchObject({ ok: true });
    expect(
      await a.db.kysely
        .selectFrom('sign_in_events')
        .select('id')
        .where('account_id', '=', owner.id)
        .execute(),
    ).toEqual([]);
  });
});
