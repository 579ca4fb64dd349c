import type { Browser, Page } from 'playwright-core';
import type { ServiceProcess } from './spawn-service.ts';

/** Where the tests' OAuth clients are sent back: nothing listens there; the page answers it and the test reads it. */
export const CALLBACK = 'http://127.0.0.1:9/callback';

/**
 * A browser page on the service, the owner's account made through the setup link the service printed and signed
 * in, the OAuth callback answered in the page.
 */
export async function ownerInBrowser(browser: Browser, svc: ServiceProcess, password: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(10_000);
  await page.route('http://127.0.0.1:9/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<p>callback</p>' }),
  );
  const link = /(http:\/\/\S+\/setup\?token=[a-z0-9]+)/.exec(svc.stdout())?.[1];
  if (link === undefined) throw new Error('the service printed no setup link');
  await page.goto(link);
  await page.getByLabel('Email').fill('owner@example.test');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/settings\?welcome=1$/);
  return page;
}
