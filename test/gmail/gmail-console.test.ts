import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../rig/browser.ts';
import { expectToolOk } from '../support/tool-caller.ts';
import { OWNER } from '../support/web-client.ts';
import { seriousAccessibilityProblems } from '../support/console-browser.ts';
import { startGmailApp, type GmailApp } from './gmail-app.ts';

// The person connects Gmail from the console, without an agent: Add an inbox offers Gmail when the operator has set up
// Google's sign-in, and its button goes on to Google (the emulator's sign-in, through the page's form-action policy)
// and back; an inbox Google stopped accepting says so and signs in again from its own button. Microsoft, not set up
// here, is not offered, and its inbox says what the operator must do.
describe('Gmail from the console (Chromium, emulate 0.12.2)', () => {
  let g: GmailApp;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [g, browser] = await Promise.all([startGmailApp(), launchBrowser()]);
    page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${g.app.config.baseUrl}/signin`);
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/settings/);
  });
  afterAll(async () => {
    await browser.close();
    await g.close();
  });

  const signInAtGoogle = async () => {
    await page.getByRole('button', { name: new RegExp(g.google.user.replaceAll('.', '\\.')) }).click();
    await page.waitForURL(/\/connect\/google\/callback/);
    await page.getByRole('heading', { name: `${g.google.user} is connected` }).waitFor();
  };
  const card = (id: string) => page.locator(`[data-inbox-id="${id}"]`);

  it('adds a Gmail inbox and connects it by the Google sign-in', async () => {
    await page.goto(`${g.app.config.baseUrl}/inboxes`);
    expect((await page.locator('#add-provider option').allInnerTexts()).map((t) => t.trim())).toEqual([
      'Gmail (Google)',
      'IMAP',
      'iCloud',
    ]);
    expect(await page.locator('#add').locator('xpath=following-sibling::p[1]').innerText()).toContain(
      'Gmail: you sign in with Google instead',
    );
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.locator('#add-label').fill('Gmail');
    await page.locator('#add-email').fill(g.google.user);
    await page.locator('#add-provider').selectOption('google');
    await page.getByRole('button', { name: 'Add and connect' }).click();
    await page.waitForURL((u) => u.origin === g.google.url);
    await signInAtGoogle();
    await page.goto(`${g.app.config.baseUrl}/inboxes`);
    const inbox = (
      expectToolOk(await g.call('list_inboxes'))['inboxes'] as { id: string; email: string }[]
    ).find((i) => i.email === g.google.user);
    expect(await card(inbox!.id).innerText()).toContain('Connected');
  });

  it('an inbox Google no longer accepts says so, and signs in again from its own button', async () => {
    const owner = (await g.app.stores.accounts.findByEmail(OWNER.email))!;
    const google = (await g.app.stores.inboxes.list(owner.id)).find((i) => i.email === g.google.user)!;
    await g.app.services.tools.inboxes.markNeedsReconnect(google, 'invalid_grant', g.app.clock.now());
    await page.goto(`${g.app.config.baseUrl}/inboxes`);
    expect(await card(google.id).locator('.problem').innerText()).toContain(
      'Google no longer accepts this inbox’s sign-in'.replace('’', "'"),
    );
    await card(google.id).getByRole('button', { name: 'Sign in with Google' }).click();
    await page.waitForURL((u) => u.origin === g.google.url);
    await signInAtGoogle();
    expect((await g.app.stores.inboxes.get(owner.id, google.id))?.connectionStatus).toBe('connected');
  });

  it('Microsoft, not set up on this server, is not offered; its inbox says what the operator must do', async () => {
    const added = expectToolOk(
      await g.call('add_inbox', { label: 'Work', provider: 'microsoft', email: 'pat@contoso.test' }),
    );
    const id = (added['inbox'] as { id: string }).id;
    await page.goto(`${g.app.config.baseUrl}/inboxes`);
    expect(await card(id).innerText()).toContain(
      'Not connected yet: sign in with Microsoft to start syncing.',
    );
    expect(await card(id).innerText()).toContain(
      'the operator sets MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET',
    );
    expect(
      await card(id)
        .getByRole('button', { name: /Sign in/ })
        .count(),
    ).toBe(0);
  });

  // Last: it ends the account. A sign-in left alive at Google outlives the account in every copy of the database made
  // before (decision 0139); removing one inbox revoked it, deleting the account did not.
  it('deleting the account revokes its Google sign-in at Google, as removing the inbox does', async () => {
    const before = g.google.requests.length;
    await page.goto(`${g.app.config.baseUrl}/settings/delete`);
    await page.getByLabel('Your password').fill(OWNER.password);
    await page.getByLabel(/Type delete to confirm/).fill('delete');
    await page.getByRole('button', { name: 'Delete account and all its data' }).click();
    await page.getByRole('heading', { name: 'Account deleted' }).waitFor();
    expect(await g.app.stores.accounts.findByEmail(OWNER.email)).toBeUndefined();
    expect(
      g.google.requests.slice(before).filter((r) => r.method === 'POST' && r.path === '/oauth2/revoke'),
    ).toHaveLength(1);
  });
});
