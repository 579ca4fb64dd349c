import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactPath, launchBrowser } from '../rig/browser.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';

// The person's side in a real browser against the real service process (SQLite), start to finish.
describe('the person in a browser', () => {
  let browser: Browser;
  let svc: ServiceProcess;
  const password = 'a long and memorable passphrase';

  beforeAll(async () => {
    [browser, svc] = await Promise.all([launchBrowser(), startService({ DATA_DIR: tempDir('browser-') })]);
  });
  afterAll(async () => {
    await browser.close();
    svc.child.kill('SIGTERM');
    await svc.exited;
  });

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: artifactPath(`person-${name}.png`), fullPage: true });

  it('setup link → owner → sign out → sign in → key shown once → REST works → revoke → 401; no secret in the logs', async () => {
    const link = /(http:\/\/\S+\/setup\?token=[a-z0-9]+)/.exec(svc.stdout())?.[1];
    expect(link).toBeDefined();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } }); // a phone
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.baseUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);

    await page.goto(link!);
    await page.getByLabel('Email').fill('owner@example.test');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/settings\?welcome=1$/);
    await expect.poll(() => page.textContent('main')).toContain('owner@example.test');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/signin$/);
    await page.getByLabel('Email').fill('owner@example.test');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/settings$/);

    await page.getByRole('link', { name: 'Advanced', exact: true }).first().click();
    await page.getByLabel('Name for a new key').fill('Claude on my laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())?.trim() ?? '';
    expect(key).toMatch(/^itk_[a-z0-9]{40}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await shot(page, 'settings-advanced-new-key');

    await page.reload();
    expect(await page.content()).not.toContain(key);
    expect(await page.textContent('main')).toContain(`itk_…${key.slice(-4)}`);
    await shot(page, 'settings-advanced-after-reload');

    const api = (k: string) =>
      fetch(`${svc.baseUrl}/api/inboxes`, { headers: { authorization: `Bearer ${k}` } });
    expect((await api(key)).status).toBe(200);

    await page.getByRole('button', { name: 'Revoke Claude on my laptop' }).click();
    await page.waitForURL(/\/settings\/advanced$/);
    expect(await page.textContent('main')).toContain('revoked');
    await shot(page, 'settings-advanced-revoked');
    const after = await api(key);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
    expect(((await after.json()) as { error: string }).error).toBe('invalid_api_key');

    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'it_session')?.value;
    expect(session).toBeDefined();
    await context.close();

    // Log lines (JSON), not the console banner that deliberately shows the one-time setup link.
    const logs = (svc.stdout() + svc.stderr())
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .join('\n');
    expect(logs).toContain('"msg":"request"'); // the logs were captured at all
    for (const secret of [key, password, session!, link!.split('token=')[1]!])
      expect(logs).not.toContain(secret);
  });
});
