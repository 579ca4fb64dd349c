import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../../app.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import { OWNER, setUpOwner, WebClient } from '../../../../test/support/web-client.ts';
import { fixedClock } from '../../../lib/clock.ts';
import { totpCode, totpStep } from '../../../lib/totp.ts';

// Two-step sign-in (decision 0089): a code from an authenticator app after the password, on the real stores and
// pages. Each code is spent when used; recovery codes work once; wrong codes are throttled per account.
describe('two-step sign-in', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const clock = fixedClock(new Date());
  /** A page's text as one line, however it is wrapped. */
  const flat = (page: string) => page.replace(/\s+/g, ' ');
  const codeAt = (secret: string, stepsAhead = 0) => totpCode(secret, totpStep(clock.now()) + stepsAhead);

  /** The owner's browser with two-step sign-in turned on: the secret and the recovery codes the pages showed. */
  async function turnedOn() {
    app = await createTestApp({ overrides: { clock } });
    const web = await setUpOwner(app);
    expect((await web.get('/settings')).status).toBe(200);
    expect(web.lastHtml).toContain('href="/settings/two-step"');
    await web.get('/settings/two-step');
    expect(web.lastHtml).toContain('<strong>Off.</strong>');
    const wrong = await web.post('/settings/two-step/begin', { password: 'not the password' });
    expect(wrong.status).toBe(400);
    const begun = await web.post('/settings/two-step/begin', { password: OWNER.password });
    expect(begun.status).toBe(200);
    const page = await begun.text();
    const secret = /class="setup-key">([A-Z2-7 ]+)</.exec(page)?.[1]?.replace(/ /g, '') ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(page).toContain('<svg');
    // Nothing changes before a code from the app confirms the secret.
    const other = new WebClient(app);
    await other.get('/signin');
    expect((await other.post('/signin', { email: OWNER.email, password: OWNER.password })).status).toBe(303);
    const miss = await web.post('/settings/two-step/confirm', {
      code: String((Number(codeAt(secret)) + 1) % 1e6).padStart(6, '0'),
    });
    expect(miss.status).toBe(400);
    expect(await miss.text()).toContain('That code is not right.');
    const on = await web.post('/settings/two-step/confirm', { code: codeAt(secret) });
    expect(on.status).toBe(200);
    const shown = await on.text();
    const recovery = [...shown.matchAll(/<li><code>([a-z0-9]{5}-[a-z0-9]{5})<\/code><\/li>/g)].map(
      (m) => m[1] ?? '',
    );
    expect(recovery).toHaveLength(10);
    expect(shown).toContain('1 other browser was signed out.');
    expect((await other.get('/settings')).status).toBe(303);
    await web.get('/settings/two-step');
    expect(flat(web.lastHtml)).toMatch(/<strong>On<\/strong> since .*Recovery codes left: 10\./);
    return { web, secret, recovery };
  }

  /** A new browser past the password: the code page. */
  async function pastPassword(a: App) {
    const b = new WebClient(a);
    await b.get('/signin');
    const res = await b.post('/signin', { email: OWNER.email, password: OWNER.password, next: '/inboxes' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/signin/code?next=%2Finboxes');
    expect((await b.get('/settings')).status).toBe(303); // not signed in yet
    const code = await b.get('/signin/code?next=%2Finboxes'); // and the page's CSRF token kept
    expect(code.status).toBe(200);
    expect(await code.text()).toContain('The six-digit code from your authenticator app');
    return b;
  }

  it('asks for a code after the password, spends each code once, and keeps the secret sealed', async () => {
    const { secret } = await turnedOn();
    const a = app as App;
    const row = await a.db.kysely.selectFrom('second_factors').selectAll().executeTakeFirstOrThrow();
    expect(row.sealed).not.toContain(secret);

    const b = await pastPassword(a);
    const wrong = await b.post('/signin/code', {
      code: '000000' === codeAt(secret, 1) ? '111111' : '000000',
      next: '/inboxes',
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('That code is not right, or was used already.');
    // The code that turned it on is spent: a replay of its step is refused.
    expect((await b.post('/signin/code', { code: codeAt(secret), next: '/inboxes' })).status).toBe(401);
    const ok = await b.post('/signin/code', { code: codeAt(secret, 1), next: '/inboxes' });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/inboxes');
    expect((await b.get('/settings')).status).toBe(200);

    // Another browser with the same code, at once: spent.
    const c = await pastPassword(a);
    expect((await c.post('/signin/code', { code: codeAt(secret, 1) })).status).toBe(401);
    clock.advance(60_000);
    expect((await c.post('/signin/code', { code: codeAt(secret) })).status).toBe(303);

    // Without the password step, or after its five minutes, a code opens nothing.
    const d = new WebClient(a);
    expect((await d.get('/signin/code')).headers.get('location')).toBe('/signin?next=%2Fsettings');
    await d.get('/signin');
    clock.advance(30_000);
    expect((await d.post('/signin/code', { code: codeAt(secret) })).status).toBe(401);
    const e = await pastPassword(a);
    clock.advance(5 * 60_000 + 1_000);
    const late = await e.post('/signin/code', { code: codeAt(secret) });
    expect(late.status).toBe(401);
    expect(await late.text()).toContain('The sign-in took too long.');
  });

  it('signs in with each recovery code once, and turns off with the password and a code', async () => {
    const { web, secret, recovery } = await turnedOn();
    const a = app as App;
    const b = await pastPassword(a);
    expect(
      (await b.post('/signin/code', { code: (recovery[0] ?? '').toUpperCase().replace('-', ' ') })).status,
    ).toBe(303);
    const c = await pastPassword(a);
    expect((await c.post('/signin/code', { code: recovery[0] ?? '' })).status).toBe(401);
    await web.get('/settings/two-step');
    expect(flat(web.lastHtml)).toContain('Recovery codes left: 9.');

    // Ten new codes, with the password and a code: the old ones stop working, the new ones work once.
    clock.advance(30_000);
    const wrongPassword = { password: 'wrong one', code: codeAt(secret) };
    expect((await web.post('/settings/two-step/recovery-codes', wrongPassword)).status).toBe(400);
    const renewed = await web.post('/settings/two-step/recovery-codes', {
      password: OWNER.password,
      code: codeAt(secret),
    });
    expect(renewed.status).toBe(200);
    const fresh = [
      ...(await renewed.text()).matchAll(/<li><code>([a-z0-9]{5}-[a-z0-9]{5})<\/code><\/li>/g),
    ].map((m) => m[1] ?? '');
    expect(fresh).toHaveLength(10);
    const e = await pastPassword(a);
    expect((await e.post('/signin/code', { code: recovery[1] ?? '' })).status).toBe(401);
    expect((await e.post('/signin/code', { code: fresh[0] ?? '' })).status).toBe(303);
    for (const code of fresh.slice(1, 7)) {
      const f = await pastPassword(a);
      expect((await f.post('/signin/code', { code })).status).toBe(303);
    }
    await web.get('/settings/two-step');
    expect(flat(web.lastHtml)).toContain('Only 3 recovery codes left: make new ones below.');

    expect(
      (await web.post('/settings/two-step/off', { password: OWNER.password, code: '12345' })).status,
    ).toBe(400);
    expect(
      (await web.post('/settings/two-step/off', { password: 'wrong one', code: fresh[8] ?? '' })).status,
    ).toBe(400);
    clock.advance(30_000);
    const off = await web.post('/settings/two-step/off', { password: OWNER.password, code: codeAt(secret) });
    expect(off.status).toBe(303);
    expect((await a.db.kysely.selectFrom('recovery_codes').selectAll().execute()).length).toBe(0);
    const d = new WebClient(a);
    await d.get('/signin');
    expect((await d.post('/signin', { email: OWNER.email, password: OWNER.password })).status).toBe(303);
  });

  it('with it on, changing the password and deleting the account take a code too', async () => {
    const { web, secret } = await turnedOn();
    const a = app as App;
    await web.get('/settings/password');
    expect(web.lastHtml).toContain('A code from your app, or a recovery code');
    const NEW = 'a new passphrase, long';
    const noCode = await web.post('/settings/password', { current: OWNER.password, password: NEW });
    expect(noCode.status).toBe(400);
    expect(await noCode.text()).toContain('That code is not right, or was used already.');
    clock.advance(30_000);
    const changed = await web.post('/settings/password', {
      current: OWNER.password,
      code: codeAt(secret),
      password: NEW,
    });
    expect(changed.status).toBe(303);
    await web.get('/settings/delete');
    expect(web.lastHtml).toContain('A code from your app, or a recovery code');
    const kept = await web.post('/settings/delete', { password: NEW, code: '000000', confirm: 'delete' });
    expect(kept.status).toBe(400);
    expect(await a.stores.accounts.findByEmail(OWNER.email)).toBeDefined();
    clock.advance(30_000);
    await web.get('/settings/delete');
    const deleted = await web.post('/settings/delete', {
      password: NEW,
      code: codeAt(secret),
      confirm: 'delete',
    });
    expect(deleted.status).toBe(200);
    expect(await a.stores.accounts.findByEmail(OWNER.email)).toBeUndefined();
  });

  it('holds wrong codes per account, with the password right', async () => {
    const { secret } = await turnedOn();
    const a = app as App;
    const b = await pastPassword(a);
    let last = 0;
    for (let i = 0; i < 8 && last !== 429; i++)
      last = (await b.post('/signin/code', { code: `99999${String(i)}` })).status;
    expect(last).toBe(429);
    // The right code too, from another browser, while the hold lasts.
    const c = await pastPassword(a);
    clock.advance(30_000);
    const held = await c.post('/signin/code', { code: codeAt(secret) });
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('is asked for after the operator’s reset link too, and the code step keeps its CSRF check', async () => {
    const { web, secret } = await turnedOn();
    const a = app as App;
    const issued = await a.services.sessions.issuePasswordReset(OWNER.email);
    const token = issued.ok ? issued.value : '';
    const b = new WebClient(a);
    await b.get(`/reset?token=${token}`);
    const reset = await b.post('/reset', { token, password: 'a new passphrase, long' });
    expect(reset.status).toBe(303);
    expect(reset.headers.get('location')).toBe('/signin?done=password_reset');
    expect((await b.get('/settings')).status).toBe(303); // not signed in by the link
    expect((await web.get('/settings')).status).toBe(303); // every browser signed out
    await b.get('/signin?done=password_reset');
    expect(b.lastHtml).toContain('Your new password is set');
    const past = await b.post('/signin', { email: OWNER.email, password: 'a new passphrase, long' });
    expect(past.status).toBe(303);
    clock.advance(30_000);
    expect((await b.post('/signin/code', { code: codeAt(secret) }, { csrf: null })).status).toBe(403);
    await b.get('/signin');
    expect((await b.post('/signin/code', { code: codeAt(secret) })).status).toBe(303);
    expect((await b.get('/settings')).status).toBe(200);
  });
});
