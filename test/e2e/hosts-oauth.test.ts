import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  auth,
  createMCPClient,
  type OAuthClientInformation,
  type OAuthClientProvider,
  type OAuthTokens,
} from '@ai-sdk/mcp';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../rig/browser.ts';
import { track } from '../rig/processes.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';

// Real MCP hosts with their default settings (issue 14), given only the URL: each registers itself, sends the
// person to our consent page (completed here in Chromium, signed in as the owner), takes the code at its own
// default loopback callback, and then talks MCP. mcp-remote 0.15.1 is the proxy Claude Desktop, Cursor and
// Windsurf users are told to use; the Inspector 2.12.0 CLI is the reference client. Neither finds a browser
// opener here, so each prints the authorization URL, as on a headless machine.
const require = createRequire(import.meta.url);
const MCP_REMOTE = require.resolve('mcp-remote/dist/proxy.js');
const INSPECTOR = join(
  dirname(require.resolve('@modelcontextprotocol/inspector/package.json')),
  'clients',
  'launcher',
  'build',
  'index.js',
);

/** Waits until `pattern` matches a growing text; its first group. */
async function until(text: () => string, pattern: RegExp, what: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const m = pattern.exec(text())?.[1];
    if (m !== undefined) return m;
    if (Date.now() > deadline) throw new Error(`no ${what}; the host said:\n${text().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('MCP hosts through OAuth with their default settings', () => {
  let browser: Browser;
  let page: Page;
  let svc: ServiceProcess;
  const children: ChildProcess[] = [];
  const password = 'a long and memorable passphrase';

  beforeAll(async () => {
    [browser, svc] = await Promise.all([
      launchBrowser(),
      startService({ DATA_DIR: tempDir('hosts-oauth-') }),
    ]);
    page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(15_000);
    const link = /(http:\/\/\S+\/setup\?token=[a-z0-9]+)/.exec(svc.stdout())![1]!;
    await page.goto(link);
    await page.getByLabel('Email').fill('owner@example.test');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/settings\?welcome=1$/);
  }, 60_000);

  afterAll(async () => {
    for (const c of children) c.kill('SIGTERM');
    await browser.close();
    svc.child.kill('SIGTERM');
    await svc.exited;
  });

  /** The person allows the host on our consent page; the browser lands on the host's own callback. */
  async function consent(url: string): Promise<URL> {
    const authorize = new URL(url);
    expect(authorize.origin).toBe(svc.baseUrl);
    const redirect = new URL(authorize.searchParams.get('redirect_uri')!);
    await page.goto(url);
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.waitForURL((u) => u.host === redirect.host);
    return redirect;
  }

  it('mcp-remote: registers, gets consent at its default localhost /oauth/callback, then lists and calls tools', async () => {
    const home = tempDir('mcp-remote-home-');
    const proxy: ChildProcessWithoutNullStreams = spawn(
      process.execPath,
      [MCP_REMOTE, `${svc.baseUrl}/mcp`],
      {
        env: { PATH: '/nonexistent', HOME: home, MCP_REMOTE_CONFIG_DIR: home },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    track(proxy);
    children.push(proxy);
    let stderr = '';
    const lines: Record<string, unknown>[] = [];
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
    const send = (msg: Record<string, unknown>) =>
      proxy.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
    const answer = async (id: number) => {
      await until(() => (lines.some((l) => l['id'] === id) ? 'x' : ''), /(x)/, `answer to ${String(id)}`);
      return lines.find((l) => l['id'] === id)!;
    };

    const url = await until(
      () => stderr,
      /Please authorize this client by visiting:\s*\n(\S+)/,
      'authorization URL',
    );
    const redirect = await consent(url);
    // Its default callback, accepted as it is: http://localhost:<port>/oauth/callback.
    expect(redirect.hostname).toBe('localhost');
    expect(redirect.pathname).toBe('/oauth/callback');

    send({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'host-test', version: '1' },
      },
    });
    expect((await answer(1))['result']).toMatchObject({ serverInfo: { name: 'inbox-triage' } });
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
  }, 60_000);

  it('Inspector CLI: OAuth with its default callback (127.0.0.1:6276/oauth/callback), then tools/list', async () => {
    let out = '';
    const cli = spawn(
      process.execPath,
      [INSPECTOR, '--cli', `${svc.baseUrl}/mcp`, '--transport', 'http', '--method', 'tools/list'],
      {
        env: {
          PATH: '/nonexistent',
          HOME: tempDir('inspector-oauth-'),
          // Without a TTY the CLI signs in interactively only when told it may try to open a browser.
          MCP_AUTO_OPEN_ENABLED: 'true',
          MCP_INSPECTOR_SECRET_STORE: 'memory',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    track(cli);
    children.push(cli);
    let stdout = '';
    cli.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      out += d.toString();
    });
    cli.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve));
    const url = await until(() => out, /Please navigate to: (\S+)/, 'authorization URL');
    const redirect = await consent(url);
    expect(redirect.href).toBe('http://127.0.0.1:6276/oauth/callback');
    expect(await exited, out.slice(-2000)).toBe(0);
    // The answer is the JSON document the CLI prints on stdout (after any notices).
    const listed = JSON.parse(stdout.slice(stdout.search(/^\{/m))) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).toContain('list_inboxes');
  }, 60_000);

  it('AI SDK (@ai-sdk/mcp 2.0.99): its authProvider registers, gets consent, finishes with auth(), then calls a tool', async () => {
    // What an AI SDK app keeps: the registered client, the PKCE verifier, the tokens; its loopback /callback.
    const redirectUrl = 'http://127.0.0.1:9/callback';
    const store: {
      client?: OAuthClientInformation;
      tokens?: OAuthTokens;
      verifier?: string;
      authorizeAt?: URL;
    } = {};
    const authProvider: OAuthClientProvider = {
      get redirectUrl() {
        return redirectUrl;
      },
      get clientMetadata() {
        return {
          client_name: 'AI SDK app',
          redirect_uris: [redirectUrl],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        };
      },
      clientInformation: () => store.client,
      saveClientInformation: (c) => {
        store.client = c;
      },
      tokens: () => store.tokens,
      saveTokens: (t) => {
        store.tokens = t;
      },
      redirectToAuthorization: (url) => {
        store.authorizeAt = url;
      },
      saveCodeVerifier: (v) => {
        store.verifier = v;
      },
      codeVerifier: () => store.verifier!,
    };
    const serverUrl = `${svc.baseUrl}/mcp`;
    const connect = () => createMCPClient({ transport: { type: 'http', url: serverUrl, authProvider } });
    await expect(connect()).rejects.toThrow();
    expect(store.authorizeAt?.origin).toBe(svc.baseUrl);
    // Nothing listens at the app's callback here: the browser's request to it is answered by the test.
    await page.route('http://127.0.0.1:9/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<p>done</p>' }),
    );
    await consent(store.authorizeAt!.href);
    const back = new URL(page.url());
    expect(
      await auth(authProvider, {
        serverUrl,
        authorizationCode: back.searchParams.get('code')!,
        callbackState: back.searchParams.get('state')!,
        callbackIssuer: back.searchParams.get('iss')!,
      }),
    ).toBe('AUTHORIZED');
    expect(store.tokens?.access_token).toMatch(/^ita_/);
    const client = await connect();
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('list_inboxes');
      const r = await client.callTool({ name: 'list_inboxes', arguments: {} });
      expect(r.isError).not.toBe(true);
      expect((r.structuredContent as { inboxes: unknown[] }).inboxes).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 60_000);
});
