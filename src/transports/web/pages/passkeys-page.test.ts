import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../../app.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import { SoftAuthenticator } from '../../../../test/support/soft-authenticator.ts';
import { invitedAccount, OWNER, setUpOwner, WebClient } from '../../../../test/support/web-client.ts';
import { fixedClock } from '../../../lib/clock.ts';

// Passkeys (decision 0092) on the real pages, stores and WebAuthn checks, with an authenticator in software that
// signs as a browser's would: added with the password, then a sign-in by the passkey alone — once per challenge,
// only for this origin, only with the person verified.
describe('passkeys', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const ORIGIN = 'http://localhost:8787';
  const clock = fixedClock(new Date());
  /** The options a page handed the browser. */
  const optionsIn = (page: string) =>
    JSON.parse(
      /<script type="application\/json" id="passkey-options">([\s\S]*?)<\/script>/.exec(page)?.[1] ?? 'null',
    ) as Record<string, unknown> | null;
  const flat = (page: string) => page.replace(/\s+/g, ' ');

  async function started() {
    app = await createTestApp({ config: { baseUrl: ORIGIN }, overrides: { clock } });
    return { a: app, owner: await setUpOwner(app) };
  }

  /** The owner's browser adds a passkey made by `key`; the page's answer. */
  async function add(web: WebClient, key: SoftAuthenticator, name = 'Work laptop') {
    await web.get('/settings/passkeys');
    const begun = await web.post('/settings/passkeys/begin', { password: OWNER.password, name });
    expect(begun.status).toBe(200);
    const options = optionsIn(await begun.text());
    expect(options).toMatchObject({
      rp: { id: 'localhost', name: 'Inbox Triage' },
      user: { name: OWNER.email },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      attestation: 'none',
    });
    return web.post('/settings/passkeys/finish', {
      name,
      credential: JSON.stringify(key.register(options!, { origin: ORIGIN })),
    });
  }

  /** A new browser signs in with `key` answering the sign-in page's challenge (changed by `tamper`). */
  async function signInWith(
    a: App,
    key: SoftAuthenticator,
    at: { origin?: string; flags?: number; counter?: number; userHandle?: string } = {},
  ) {
    const web = new WebClient(a, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0' });
    await web.get('/signin?next=%2Finboxes');
    const options = optionsIn(web.lastHtml);
    expect(options).toMatchObject({ rpId: 'localhost', userVerification: 'required' });
    const answer = key.assert(options!, { origin: ORIGIN, ...at });
    const res = await web.post('/signin/passkey', { credential: JSON.stringify(answer), next: '/inboxes' });
    return { web, res, answer };
  }

  it('adds a passkey with the password, and signs in with it alone, once per challenge', async () => {
    const { a, owner } = await started();
    const key = new SoftAuthenticator();
    expect((await owner.get('/settings')).status).toBe(200);
    expect(owner.lastHtml).toContain('href="/settings/passkeys"');
    await owner.get('/settings/passkeys');
    expect(owner.lastHtml).toContain('No passkeys yet.');
    expect((await owner.post('/settings/passkeys/begin', { password: 'not it', name: '' })).status).toBe(400);
    const added = await add(owner, key);
    expect(added.status).toBe(303);
    expect(added.headers.get('location')).toBe('/settings/passkeys?done=added');
    await owner.get('/settings/passkeys?done=added');
    expect(flat(owner.lastHtml)).toContain('Your passkey is added.');
    expect(owner.lastHtml).toContain('<td>Work laptop</td>');

    const { web, res, answer } = await signInWith(a, key);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/inboxes');
    expect((await web.get('/settings')).status).toBe(200);
    // The same answer again, from another browser: its challenge is spent.
    const replay = new WebClient(a);
    await replay.get('/signin');
    const again = await replay.post('/signin/passkey', { credential: JSON.stringify(answer), next: '/' });
    expect(again.status).toBe(401);
    expect(await again.text()).toContain('That passkey could not be checked.');
    expect((await replay.get('/settings')).status).toBe(303);

    const account = (await a.stores.accounts.findByEmail(OWNER.email))!;
    expect((await a.stores.signInHistory.recent(account.id, 5)).map((e) => e.kind)).toEqual([
      'signed_in_with_passkey',
      'passkey_added',
      'wrong_password',
    ]);
    const [stored] = await a.stores.passkeys.list(account.id);
    expect(stored).toMatchObject({ name: 'Work laptop', counter: 0, transports: ['internal'] });
    expect(stored?.lastUsedAt).toEqual(clock.now());
  });

  it('refuses an answer from another origin, without the person verified, for another account, or a cloned counter', async () => {
    const { a, owner } = await started();
    const key = new SoftAuthenticator({ counter: 10 });
    expect((await add(owner, key)).status).toBe(303);
    for (const at of [
      { origin: 'http://localhost.evil.example:8787' },
      { flags: 0x01 },
      { counter: 10 },
      { userHandle: Buffer.from('acct_someone_else').toString('base64url') },
    ]) {
      const { web, res } = await signInWith(a, key, at);
      expect(res.status, JSON.stringify(at)).toBe(401);
      expect((await web.get('/settings')).status).toBe(303);
    }
    expect((await signInWith(a, key, { counter: 12 })).res.status).toBe(303);
    expect((await signInWith(a, key, { counter: 11 })).res.status).toBe(401);
  });

  it('a challenge made for adding does not sign in, and an old page’s challenge has ended', async () => {
    const { a, owner } = await started();
    const key = new SoftAuthenticator();
    expect((await add(owner, key)).status).toBe(303);
    const begun = await owner.post('/settings/passkeys/begin', { password: OWNER.password, name: '' });
    const addOptions = optionsIn(await begun.text())!;
    const web = new WebClient(a);
    await web.get('/signin');
    const wrongPurpose = key.assert(
      { challenge: addOptions['challenge'], rpId: 'localhost' },
      { origin: ORIGIN },
    );
    expect((await web.post('/signin/passkey', { credential: JSON.stringify(wrongPurpose) })).status).toBe(
      401,
    );

    const late = new WebClient(a);
    await late.get('/signin');
    const options = optionsIn(late.lastHtml)!;
    clock.advance(11 * 60_000);
    const res = await late.post('/signin/passkey', {
      credential: JSON.stringify(key.assert(options, { origin: ORIGIN })),
    });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('The sign-in page was open too long.');
  });

  it('refuses what is not an answer at all, in words, and the form without its CSRF token', async () => {
    const { a } = await started();
    for (const credential of [
      '',
      'not json',
      '{"id":"x"}',
      JSON.stringify({ id: '<script>' }),
      'x'.repeat(70_000),
    ]) {
      const web = new WebClient(a);
      await web.get('/signin');
      const res = await web.post('/signin/passkey', { credential });
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('Sign in with your password');
    }
    const web = new WebClient(a);
    await web.get('/signin');
    expect((await web.post('/signin/passkey', { credential: '{}' }, { csrf: null })).status).toBe(403);
    // A wrong password leaves the passkey on offer.
    await web.get('/signin');
    expect((await web.post('/signin', { email: OWNER.email, password: 'not it' })).status).toBe(401);
    expect(web.lastHtml).toContain('id="passkey-button"');
  });

  it('signs in with a passkey when two-step sign-in is on, without a code', async () => {
    const { a, owner } = await started();
    const key = new SoftAuthenticator();
    expect((await add(owner, key)).status).toBe(303);
    const account = (await a.stores.accounts.findByEmail(OWNER.email))!;
    const secret = a.services.secondFactor.newSecret();
    const { totpCode, totpStep } = await import('../../../lib/totp.ts');
    const on = await a.services.secondFactor.enable(
      account.id,
      secret,
      totpCode(secret, totpStep(clock.now())),
      {
        ip: '::1',
        userAgent: null,
      },
    );
    expect(on.ok).toBe(true);
    const { web, res } = await signInWith(a, key);
    expect(res.status).toBe(303);
    expect((await web.get('/settings')).status).toBe(200);
    // Another passkey now takes a code as well as the password: a session and a phished password are not enough.
    await owner.get('/settings/passkeys');
    expect(owner.lastHtml).toContain('A code from your app, or a recovery code');
    const noCode = await owner.post('/settings/passkeys/begin', { password: OWNER.password, name: '' });
    expect(noCode.status).toBe(400);
    expect(optionsIn(await noCode.text())).toBeNull();
    clock.advance(30_000);
    const begun = await owner.post('/settings/passkeys/begin', {
      password: OWNER.password,
      code: totpCode(secret, totpStep(clock.now())),
      name: '',
    });
    expect(begun.status).toBe(200);
    expect(optionsIn(await begun.text())).toMatchObject({ rp: { id: 'localhost' } });
  });

  it('removes a passkey with the password, after which it signs in no more; another account cannot', async () => {
    const { a, owner } = await started();
    const key = new SoftAuthenticator();
    expect((await add(owner, key)).status).toBe(303);
    const account = (await a.stores.accounts.findByEmail(OWNER.email))!;
    const credentialId = (await a.stores.passkeys.list(account.id))[0]?.credentialId ?? '';
    const other = await invitedAccount(a, 'other@example.test');
    await other.get('/settings/passkeys');
    const theirs = await other.post('/settings/passkeys/remove', {
      password: 'another long passphrase',
      credentialId,
    });
    expect(theirs.status).toBe(404);
    await owner.get('/settings/passkeys');
    expect((await owner.post('/settings/passkeys/remove', { password: 'not it', credentialId })).status).toBe(
      400,
    );
    const removed = await owner.post('/settings/passkeys/remove', { password: OWNER.password, credentialId });
    expect(removed.status).toBe(303);
    const { res } = await signInWith(a, key);
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('That passkey is not one of an account here');
    expect((await a.stores.signInHistory.recent(account.id, 1)).map((e) => e.kind)).toEqual([
      'passkey_removed',
    ]);
  });

  it('holds at most twenty passkeys on an account', async () => {
    const { a, owner } = await started();
    const account = (await a.stores.accounts.findByEmail(OWNER.email))!;
    // Nineteen made elsewhere, one through the pages: twenty.
    for (let i = 0; i < 19; i++)
      await a.stores.passkeys.add({
        credentialId: `made-elsewhere-${String(i)}`,
        accountId: account.id,
        publicKey: new Uint8Array([1]),
        counter: 0,
        transports: [],
        name: `Key ${String(i)}`,
        createdAt: clock.now(),
        lastUsedAt: null,
      });
    expect((await add(owner, new SoftAuthenticator())).status).toBe(303);
    await owner.get('/settings/passkeys');
    const more = await owner.post('/settings/passkeys/begin', { password: OWNER.password, name: '' });
    expect(more.status).toBe(409);
    expect(await more.text()).toContain('You have 20 passkeys: remove one before adding another.');
    expect(await a.stores.passkeys.list(account.id)).toHaveLength(20);
  });

  it('is not offered at an IP address, where browsers make none', async () => {
    app = await createTestApp();
    const owner = await setUpOwner(app);
    await owner.get('/settings/passkeys');
    expect(flat(owner.lastHtml)).toContain('Passkeys need this service at a domain name');
    expect(owner.lastHtml).not.toContain('/settings/passkeys/begin');
    const web = new WebClient(app);
    await web.get('/signin');
    expect(web.lastHtml).not.toContain('passkey-button');
    expect((await web.post('/signin/passkey', { credential: '{}' })).status).toBe(401);
  });
});
