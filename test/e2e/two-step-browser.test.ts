import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkceChallenge } from '../../src/lib/secret-token.ts';
import { totpCode, totpStep } from '../../src/lib/totp.ts';
import { artifactPath, launchBrowser } from '../rig/browser.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';
import { seriousAccessibilityProblems } from '../support/console-browser.ts';
import { CALLBACK, ownerInBrowser } from '../support/browser-owner.ts';

const REDIRECT = CALLBACK;
const PASSWORD = 'a long and memorable passphrase';

// Decision 0089 in Chromium against the real process: two-step sign-in turned on from Settings (the QR code and the
// setup key drawn), then an agent's OAuth connection through the sign-in, the code page and the consent page — the
// browser's own cookies carrying the password step to the code step and on to the consent.
describe('two-step sign-in in a browser', () => {
  let browser: Browser;
  let svc: ServiceProcess;
  let page: Page;
  let secret = '';

  beforeAll(async () => {
    [browser, svc] = await Promise.all([launchBrowser(), startService({ DATA_DIR: tempDir('two-step-') })]);
    page = await ownerInBrowser(browser, svc, PASSWORD);
  });
  afterAll(async () => {
    await browser.close();
    svc.child.kill('SIGTERM');
    await svc.exited;
  });

  it('is turned on from Settings with the password and a code from the app', async () => {
    await page.getByRole('link', { name: 'Two-step sign-in' }).click();
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
    await page.getByRole('img', { name: 'QR code of the setup key' }).locator('svg').waitFor();
    await page.screenshot({ path: artifactPath('two-step-setup.png'), fullPage: true });
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    secret = ((await page.locator('.setup-key').textContent()) ?? '').replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByLabel('Code from the app').fill(totpCode(secret, totpStep(new Date())));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('heading', { name: 'Two-step sign-in is on' }).waitFor();
    expect(await page.locator('.recovery-codes li').count()).toBe(10);
    await page.goto(`${svc.baseUrl}/settings/two-step`);
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/signin$/);
  });

  it('an agent’s OAuth connection passes through the password, the code and the consent', async () => {
    const res = await fetch(`${svc.baseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Laptop Agent',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    });
    const clientId = ((await res.json()) as { client_id: string }).client_id;
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: pkceChallenge('x'.repeat(50)),
      code_challenge_method: 'S256',
      state: 's1',
      resource: `${svc.baseUrl}/mcp`,
      scope: 'mcp:tools',
    });
    await page.goto(`${svc.baseUrl}/oauth/authorize?${query.toString()}`);
    await page.waitForURL(/\/signin\?next=/);
    await page.getByLabel('Email').fill('owner@example.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByLabel('The six-digit code from your authenticator app');
    await code.waitFor();
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await code.fill('000000' === totpCode(secret, totpStep(new Date()) + 1) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That code is not right, or was used already.').waitFor();
    // The code of the step after the one that turned it on (that one is spent).
    await page
      .getByLabel('The six-digit code from your authenticator app')
      .fill(totpCode(secret, totpStep(new Date()) + 1));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/oauth\/consent\?request=/);
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:9\/callback/);
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).toBe('s1');
    expect(back.searchParams.get('code')).toMatch(/.+/);
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'it_signin')).toBeUndefined(); // the password step's ticket is gone
    expect(cookies.find((c) => c.name === 'it_session')?.httpOnly).toBe(true);
  });
});
