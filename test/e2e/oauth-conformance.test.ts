import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../rig/free-port.ts';
import { track } from '../rig/processes.ts';
import { startMcpTestServer, type McpTestServer } from '../support/mcp-test-server.ts';
import { WebClient } from '../support/web-client.ts';

const root = join(import.meta.dirname, '..', '..');
const CONFORMANCE = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('MCP conformance suite: authorization server scenarios', () => {
  let server: McpTestServer;
  beforeAll(async () => {
    server = await startMcpTestServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('passes metadata and the authorization-code grant, with the consent step driven by a scripted browser', async () => {
    const issuer = server.app.config.baseUrl;
    const callbackPort = await freePort();
    const reg = await fetch(`${issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'conformance',
        redirect_uris: [`http://127.0.0.1:${String(callbackPort)}/callback`],
        token_endpoint_auth_method: 'none',
      }),
    });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;

    const child = track(
      spawn(
        process.execPath,
        [
          CONFORMANCE,
          'authorization',
          '--url',
          issuer,
          '--client-id',
          clientId,
          '--resource',
          `${issuer}/mcp`,
          '--port',
          String(callbackPort),
        ],
        {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      ),
    );
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const authorizeUrl = await new Promise<string>((resolve, reject) => {
      const onData = (d: Buffer) => {
        output += d.toString();
        const m = /(https?:\/\/\S+\/oauth\/authorize\?\S+)/.exec(plain(output));
        if (m?.[1] !== undefined) resolve(m[1]);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then(() =>
        reject(new Error(`conformance exited before printing an authorize URL:\n${plain(output)}`)),
      );
    });

    // The scripted browser: sign in, follow the authorize URL, approve, deliver the callback to the harness.
    const browser = new WebClient(server.app);
    await browser.get('/signin');
    await browser.post('/signin', { email: 'owner@example.test', password: 'correct horse battery' });
    const start = await browser.get(new URL(authorizeUrl).pathname + new URL(authorizeUrl).search);
    const consent = start.headers.get('location')!;
    await browser.get(consent);
    const done = await browser.post('/oauth/consent', {
      request: new URL(consent, issuer).searchParams.get('request')!,
      decision: 'approve',
    });
    await fetch(done.headers.get('location')!);

    const code = await exited;
    const text = plain(output);
    expect(code, text).toBe(0);
    expect(text).toMatch(/authorization-server-metadata-endpoint: \d+ passed, 0 failed/);
    expect(text).toMatch(/authorization-code-grant: \d+ passed, 0 failed/);
  }, 120_000);
});
