import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkceChallenge } from '../../src/lib/secret-token.ts';
import { artifactPath, launchBrowser } from '../rig/browser.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';
import { CALLBACK, ownerInBrowser } from '../support/browser-owner.ts';

const REDIRECT = CALLBACK;
const VERIFIER = 'x'.repeat(50);

describe('consent and connected agents in a browser', () => {
  let browser: Browser;
  let svc: ServiceProcess;
  let page: Page;
  const password = 'a long and memorable passphrase';

  beforeAll(async () => {
    [browser, svc] = await Promise.all([
      launchBrowser(),
      startService({ DATA_DIR: tempDir('oauth-browser-') }),
    ]);
    page = await ownerInBrowser(browser, svc, password);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/signin$/);
  });
  afterAll(async () => {
    await browser.close();
    svc.child.kill('SIGTERM');
    await svc.exited;
  });

  const register = async (name: string) => {
    const res = await fetch(`${svc.baseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: name,
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    });
    return ((await res.json()) as { client_id: string }).client_id;
  };
  const authorizeUrl = (clientId: string) =>
    `${svc.baseUrl}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkceChallenge(VERIFIER), code_challenge_method: 'S256', state: 's1', resource: `${svc.baseUrl}/mcp`, scope: 'mcp:tools' }).toString()}`;
  const exchange = async (clientId: string, code: string) => {
    const res = await fetch(`${svc.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: VERIFIER,
        redirect_uri: REDIRECT,
        client_id: clientId,
        resource: `${svc.baseUrl}/mcp`,
      }),
    });
    return (await res.json()) as { access_token: string };
  };
  const mcpStatus = async (token: string) =>
    (
      await fetch(`${svc.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      })
    ).status;

  async function consent(clientId: string, button: 'Allow' | 'Deny', shot?: string): Promise<URL> {
    await page.goto(authorizeUrl(clientId));
    if (page.url().includes('/signin')) {
      await page.getByLabel('Email').fill('owner@example.test');
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/oauth\/consent\?request=/);
    }
    if (shot !== undefined) await page.screenshot({ path: artifactPath(shot), fullPage: true });
    await page.getByRole('button', { name: button, exact: true }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:9\/callback/);
    return new URL(page.url());
  }

  it('approve: signs in, names the client and warns for a loopback-only app, returns code, state and iss', async () => {
    const id = await register('Laptop Agent');
    await page.goto(authorizeUrl(id));
    await page.waitForURL(/\/signin\?next=/);
    const back = await consent(id, 'Allow', 'oauth-consent.png');
    expect(back.searchParams.get('state')).toBe('s1');
    expect(back.searchParams.get('iss')).toBe(svc.baseUrl);
    const tokens = await exchange(id, back.searchParams.get('code')!);
    expect(await mcpStatus(tokens.access_token)).toBe(200);
  });

  it('the consent page shows the client name and the loopback warning', async () => {
    const id = await register('Shown Name');
    await page.goto(authorizeUrl(id));
    await expect.poll(() => page.textContent('main')).toContain('Allow “Shown Name” to use your inboxes?');
    expect(await page.textContent('main')).toContain('only runs on this computer');
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:9\/callback/);
  });

  it('deny: returns access_denied with state and iss', async () => {
    const back = await consent(await register('Declined Agent'), 'Deny');
    expect(Object.fromEntries(back.searchParams)).toMatchObject({
      error: 'access_denied',
      state: 's1',
      iss: svc.baseUrl,
    });
  });

  it('disconnect one agent, then everything (agents and API keys)', async () => {
    const a = await register('Agent A');
    const b = await register('Agent B');
    const tokenA = (await exchange(a, (await consent(a, 'Allow')).searchParams.get('code')!)).access_token;
    const tokenB = (await exchange(b, (await consent(b, 'Allow')).searchParams.get('code')!)).access_token;
    await page.goto(`${svc.baseUrl}/settings/advanced`);
    await page.getByLabel('Name for a new key').fill('script');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();

    await page.goto(`${svc.baseUrl}/settings/agents`);
    expect(await page.textContent('main')).toContain('Agent A');
    await page.screenshot({ path: artifactPath('oauth-connected-agents.png'), fullPage: true });
    await page.getByRole('button', { name: 'Disconnect Agent A' }).click();
    await page.waitForURL(/done=one/);
    expect(await mcpStatus(tokenA)).toBe(401);
    expect(await mcpStatus(tokenB)).toBe(200);
    expect(await mcpStatus(key)).toBe(200);

    await page.getByRole('button', { name: 'Disconnect every agent and API key' }).click();
    await page.waitForURL(/done=all/);
    await page.screenshot({ path: artifactPath('oauth-disconnected-everything.png'), fullPage: true });
    expect(await mcpStatus(tokenB)).toBe(401);
    expect(await mcpStatus(key)).toBe(401);
  });
});
