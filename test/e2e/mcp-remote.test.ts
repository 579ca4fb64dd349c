import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../rig/browser.ts';
import { track } from '../rig/processes.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';

// A real MCP host's default settings (issue 14): mcp-remote 0.15.1 — the proxy Claude Desktop, Cursor and Windsurf
// users are told to use — given only the URL. It registers itself, sends the person to our consent page (completed
// here in Chromium, signed in as the owner), takes the code at its own loopback callback, and then carries MCP over
// its stdio.
const MCP_REMOTE = createRequire(import.meta.url).resolve('mcp-remote/dist/proxy.js');

describe('mcp-remote 0.15.1 with its default flags', () => {
  let browser: Browser;
  let page: Page;
  let svc: ServiceProcess;
  let proxy: ChildProcessWithoutNullStreams;
  let stderr = '';
  const lines: Record<string, unknown>[] = [];
  const password = 'a long and memorable passphrase';

  beforeAll(async () => {
    [browser, svc] = await Promise.all([launchBrowser(), startService({ DATA_DIR: tempDir('mcp-remote-') })]);
    page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(15_000);
    const link = /(http:\/\/\S+\/setup\?token=[a-z0-9]+)/.exec(svc.stdout())![1]!;
    await page.goto(link);
    await page.getByLabel('Email').fill('owner@example.test');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/settings\?welcome=1$/);

    const home = tempDir('mcp-remote-home-');
    // No display and no opener: mcp-remote prints the authorization URL, as it does on a headless machine.
    proxy = spawn(process.execPath, [MCP_REMOTE, `${svc.baseUrl}/mcp`], {
      env: { PATH: '/nonexistent', HOME: home, MCP_REMOTE_CONFIG_DIR: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    track(proxy);
    proxy.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let buffered = '';
    proxy.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      }
    });
  }, 60_000);

  afterAll(async () => {
    proxy.kill('SIGTERM');
    await browser.close();
    svc.child.kill('SIGTERM');
    await svc.exited;
  });

  const send = (msg: Record<string, unknown>) =>
    proxy.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
  async function answer(id: number): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = lines.find((l) => l['id'] === id);
      if (found !== undefined) return found;
      if (Date.now() > deadline)
        throw new Error(`no answer to ${String(id)}; mcp-remote said:\n${stderr.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('registers, gets the person’s consent at its default loopback callback, and then lists and calls tools', async () => {
    const deadline = Date.now() + 30_000;
    let url: string | undefined;
    while (url === undefined) {
      url = /Please authorize this client by visiting:\s*\n(\S+)/.exec(stderr)?.[1];
      if (Date.now() > deadline)
        throw new Error(`no authorization URL; mcp-remote said:\n${stderr.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const authorize = new URL(url);
    expect(authorize.origin).toBe(svc.baseUrl);
    const redirect = new URL(authorize.searchParams.get('redirect_uri')!);
    // Its default callback, accepted as it is: http://localhost:<port>/oauth/callback.
    expect(redirect.hostname).toBe('localhost');
    expect(redirect.pathname).toBe('/oauth/callback');
    await page.goto(url);
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.waitForURL((u) => u.host === redirect.host);

    send({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'host-test', version: '1' },
      },
    });
    const init = await answer(1);
    expect(init['result']).toMatchObject({ serverInfo: { name: 'inbox-triage' } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list' });
    const tools = (await answer(2))['result'] as { tools: { name: string }[] };
    expect(tools.tools.map((t) => t.name)).toContain('screen_junk');
    send({ id: 3, method: 'tools/call', params: { name: 'list_inboxes', arguments: {} } });
    const listed = (await answer(3))['result'] as {
      isError?: boolean;
      structuredContent: { inboxes: unknown[] };
    };
    expect(listed.isError).not.toBe(true);
    expect(listed.structuredContent.inboxes).toHaveLength(1);
  });
});
