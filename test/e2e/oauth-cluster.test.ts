import { afterAll, describe, expect, it } from 'vitest';
import { freshPgDatabase } from '../rig/pg.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { createTestApp, TEST_KEY } from '../support/test-app.ts';
import { tempDir } from '../support/temp-dir.ts';
import { approvedCode, codeGrant } from '../support/oauth-code.ts';
import { setUpOwner } from '../support/web-client.ts';

const running: ServiceProcess[] = [];
afterAll(async () => {
  for (const s of running) s.child.kill('SIGTERM');
  await Promise.all(running.map((s) => s.exited));
});

describe('OAuth across two processes on one PostgreSQL', () => {
  it('refreshes sent at once to both nodes get one answer; a reuse at one node revokes the sign-in at both', async () => {
    const url = await freshPgDatabase();
    // Both nodes share one BASE_URL (behind a load balancer), so tokens are for the same resource.
    const base = 'http://127.0.0.1:8787';
    const admin = await createTestApp({ pgUrl: url, config: { baseUrl: base } });
    const browser = await setUpOwner(admin);
    const { clientId, code } = await approvedCode(browser, `${base}/mcp`);
    await admin.close();

    // Like every cluster (README, "Running several instances"): one database, one BASE_URL, one ENCRYPTION_KEY.
    const env = { DATABASE_URL: url, BASE_URL: base, ENCRYPTION_KEY: TEST_KEY.toString('base64') };
    const [a, b] = await Promise.all([
      startService({ ...env, DATA_DIR: tempDir('o1-') }),
      startService({ ...env, DATA_DIR: tempDir('o2-') }),
    ]);
    running.push(a, b);
    const token = async (node: ServiceProcess, params: Record<string, string>) => {
      const res = await fetch(`${node.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: clientId, ...params }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, string> };
    };
    const mcp = async (node: ServiceProcess, bearer: string) =>
      (
        await fetch(`${node.baseUrl}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${bearer}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        })
      ).status;

    const first = await token(a, codeGrant(code, `${base}/mcp`));
    expect(first.status).toBe(200);
    const refresh = (node: ServiceProcess, refreshToken: string) =>
      token(node, { grant_type: 'refresh_token', refresh_token: refreshToken });

    // Six refreshes of one token at once, spread over both nodes: one rotation, one answer for all (decision 0041).
    const at = await Promise.all(
      [a, b, a, b, a, b].map((node) => refresh(node, first.body['refresh_token']!)),
    );
    expect(at.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(at.map((r) => `${r.body['access_token']} ${r.body['refresh_token']}`)).size).toBe(1);
    const second = at[0]!;
    expect(await mcp(b, second.body['access_token']!)).toBe(200);
    const third = await refresh(b, second.body['refresh_token']!);
    expect(third.status).toBe(200);
    expect(await mcp(a, third.body['access_token']!)).toBe(200);

    // The first token again, after its successor was rotated on: a stolen copy. The whole sign-in ends on both nodes.
    const reuse = await refresh(b, first.body['refresh_token']!);
    expect([reuse.status, reuse.body['error']]).toEqual([400, 'invalid_grant']);
    expect(await mcp(a, third.body['access_token']!)).toBe(401);
    expect(await mcp(b, third.body['access_token']!)).toBe(401);
    expect((await refresh(a, third.body['refresh_token']!)).body['error']).toBe('invalid_grant');
  });
});
