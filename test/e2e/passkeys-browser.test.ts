import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactPath, launchBrowser } from '../rig/browser.ts';
import { freePort } from '../rig/free-port.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';
import { seriousAccessibilityProblems } from '../support/console-browser.ts';

const PASSWORD = 'a long and memorable passphrase';

// Decision 0092 in Chromium against the real process, with the browser's own WebAuthn stack and a virtual platform
// authenticator (DevTools protocol): a passkey added from Settings, then a sign-in by it alone — from the browser's
// own `navigator.credentials`, not the software authenticator the page tests use. The service is at
// http://localhost:<port>, a domain the browser makes passkeys for.
describe('passkeys in a browser', () => {
  let browser: Browser;
  let svc: ServiceProcess;
  let page: Page;
  let cdp: CDPSession;
  let origin = '';
  let authenticatorId = '';

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${String(port)}`;
    [browser, svc] = await Promise.all([
      launchBrowser(),
      startService({ DATA_DIR: tempDir('passkeys-'), PORT: String(port), BASE_URL: origin }),
    ]);
    page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(10_000);
    cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    }));
    const link = /(http:\/\/\S+\/setup\?token=[a-z0-9]+)/.exec(svc.stdout())?.[1];
    expect(link?.startsWith(`${origin}/setup?token=`)).toBe(true);
    await page.goto(link ?? '');
    await page.getByLabel('Email').fill('owner@example.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/settings\?welcome=1$/);
  });
  afterAll(async () => {
    await browser.close();
    svc.child.kill('SIGTERM');
    await svc.exited;
  });

  it('adds a passkey from Settings with the password and the browser’s prompt', async () => {
    await page.getByRole('link', { name: 'Passkeys' }).click();
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByLabel('Name it (optional)').fill('Test laptop');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Create the passkey' }).click();
    await page.waitForURL(/\/settings\/passkeys\?done=added$/);
    await page.getByRole('cell', { name: 'Test laptop', exact: true }).waitFor();
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.screenshot({ path: artifactPath('passkeys.png'), fullPage: true });
    const { credentials } = (await cdp.send('WebAuthn.getCredentials', {
      authenticatorId,
    })) as { credentials: { rpId: string; isResidentCredential: boolean; signCount: number }[] };
    expect(credentials).toEqual([expect.objectContaining({ rpId: 'localhost', isResidentCredential: true })]);
  });

  it('signs in with the passkey alone, and the history says so', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/signin$/);
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(/\/settings$/);
    await page.goto(`${origin}/settings/browsers`);
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    const kinds = await page
      .locator('tr[data-kind]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-kind')));
    expect(kinds.slice(0, 2)).toEqual(['signed_in_with_passkey', 'passkey_added']);
  });
});
