import { build } from 'rolldown';
import type { Page } from 'playwright-core';

let bundled: Promise<string> | undefined;

/** host.ts bundled for the browser once per test file (rolldown, no network). */
function hostScript(): Promise<string> {
  bundled ??= build({
    input: new URL('./host.ts', import.meta.url).pathname,
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    output: { format: 'esm', minify: false },
  }).then((out) => {
    const chunk = out.output.find((o) => o.type === 'chunk');
    if (chunk === undefined) throw new Error('the host did not bundle');
    return chunk.code;
  });
  return bundled;
}

/**
 * Serves the strict test host at `<baseUrl>/test-host` in this page (Playwright answers the page itself, so the
 * host is same-origin with the service's /mcp, as a web host would proxy it) and connects it with the API key.
 */
export async function openTestHost(page: Page, baseUrl: string, key: string): Promise<void> {
  const script = await hostScript();
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title></head>' +
    '<body><h1>Strict MCP Apps test host</h1><div id="frames"></div>' +
    `<script type="module">${script.replaceAll('</script', '<\\/script')}</script></body></html>`;
  await page.route(`${baseUrl}/test-host`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }),
  );
  await page.goto(`${baseUrl}/test-host`);
  await page.waitForFunction(() => 'host' in window);
  await page.evaluate(async (k) => {
    await (window as unknown as { host: { connect(key: string): Promise<void> } }).host.connect(k);
  }, key);
}
