import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Frame, Page } from 'playwright-core';
import { OWNER } from './web-client.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface ConsolePage {
  readonly page: Page;
  /** Every report of the page's Content-Security-Policy refusing something, in the order they came. */
  readonly cspViolations: string[];
}

/**
 * A console page signed in as the owner, in a browser context that enforces the pages' own Content-Security-Policy:
 * a script, style or form the policy would refuse in a person's browser is refused here too, and reported in
 * `cspViolations` (a test expects it empty). axe-core is evaluated through the DevTools protocol, which the policy
 * does not govern, so checking accessibility needs no hole in it.
 */
export const PERSON_ZONE = 'Europe/Berlin';
export const PERSON_LOCALE = 'en-GB';

export async function signedInConsole(browser: Browser, baseUrl: string): Promise<ConsolePage> {
  // A person's browser somewhere else than the server's UTC: the pages show times in its zone and language.
  const page = await (await browser.newContext({ timezoneId: PERSON_ZONE, locale: PERSON_LOCALE })).newPage();
  const cspViolations: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content[- ]Security[- ]Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  page.setDefaultTimeout(15_000);
  await page.goto(`${baseUrl}/signin`);
  await page.getByLabel('Email').fill(OWNER.email);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/settings/);
  return { page, cspViolations };
}

/** axe-core's serious and critical findings on the page (or a view's frame) as it is now: `id (impact, n nodes)`. */
export async function seriousAccessibilityProblems(target: Page | Frame): Promise<string[]> {
  await target.evaluate(AXE);
  return target.evaluate<string[]>(
    `axe.run(document).then((r) => r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ' (' + v.impact + ', ' + v.nodes.length + ' nodes)'))`,
  );
}
