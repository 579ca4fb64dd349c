import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, LaunchOptions } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

// Flags for a quiet, hermetic headless Chromium in a root container: no
// sandbox (root), no GPU, and none of the background traffic to Google.
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/**
 * Launches Debian's Chromium through playwright-core (which downloads no
 * browser of its own). Close it with `browser.close()` in afterAll; Playwright
 * also kills it when the test process exits.
 */
export function launchBrowser(overrides: LaunchOptions = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    ...overrides,
    args: [...ARGS, ...(overrides.args ?? [])],
  });
}

/** Repo-root test-artifacts/ (git-ignored), where screenshots and traces go. */
const ARTIFACTS_DIR = resolve(import.meta.dirname, '..', '..', 'test-artifacts');

/** A path under test-artifacts/ for `name` (sanitised to one file name); creates the dir. */
export function artifactPath(name: string): string {
  const safe = name.replace(/[^\w.-]+/g, '-').replace(/^[.-]+/, '');
  if (!safe) throw new Error(`Unusable artifact name ${JSON.stringify(name)}`);
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return join(ARTIFACTS_DIR, safe);
}
