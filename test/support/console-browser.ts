import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { App } from '../../src/app.ts';
import type { Config } from '../../src/config/index.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { listen, type RunningServer } from '../../src/transports/http/serve.ts';
import { launchBrowser } from '../rig/browser.ts';
import { freePort } from '../rig/index.ts';
import { createTestApp } from './test-app.ts';
import { OWNER, setUpOwner, type WebClient } from './web-client.ts';

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

/** The console of `consoleInChromium`, ready once its beforeAll has run. */
export interface ConsoleRig {
  readonly app: App;
  /** Chromium signed in as the owner (`signedInConsole`). */
  readonly page: Page;
  /** The owner's own HTTP client, signed in too: for what a test sets up without the browser (an agent's key). */
  readonly web: WebClient;
}

/**
 * The console served on a free port of 127.0.0.1 with its owner set up, and Chromium signed in as them: one for the
 * describe block that calls this. Registers its own hooks — before all: the app, its server, the browser, the owner
 * and the sign-in; after each: the pages' own Content-Security-Policy refused nothing they need; after all: all of it
 * closed. A test's own beforeAll runs after it, and reads the fields.
 */
export function consoleInChromium(options: { readonly config?: Partial<Config> } = {}): ConsoleRig {
  let browser: Browser | undefined;
  let app: App | undefined;
  let server: RunningServer | undefined;
  let ready: (ConsoleRig & { readonly cspViolations: string[] }) | undefined;
  const get = () => {
    if (ready === undefined)
      throw new Error('the console is set up in beforeAll: read it in a test or a later hook');
    return ready;
  };

  beforeAll(async () => {
    const port = await freePort();
    browser = await launchBrowser();
    app = await createTestApp({ config: { ...options.config, baseUrl: `http://127.0.0.1:${String(port)}` } });
    server = await listen(app.fetch, { host: '127.0.0.1', port, log: silentLogger });
    const web = await setUpOwner(app);
    const { page, cspViolations } = await signedInConsole(browser, app.config.baseUrl);
    ready = { app, page, web, cspViolations };
  }, 60_000);

  // The pages' own policy was enforced throughout: nothing they need was refused.
  afterEach(() => {
    expect(get().cspViolations.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close(1000);
    await app?.close();
  });

  return {
    get app() {
      return get().app;
    },
    get page() {
      return get().page;
    },
    get web() {
      return get().web;
    },
  };
}
