import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import { fixedClock } from '../../lib/clock.ts';
import { createTestApp } from '../../../test/support/test-app.ts';
import { approvedCode, codeGrant } from '../../../test/support/oauth-code.ts';
import { toolsListStatus } from '../../../test/support/tool-caller.ts';
import { setUpOwner } from '../../../test/support/web-client.ts';

/** A signed-in OAuth client: its first token pair, and how to call the token endpoint and /mcp. */
async function signedIn(app: App) {
  const base = app.config.baseUrl;
  const { clientId, code } = await approvedCode(await setUpOwner(app), `${base}/mcp`);
  const token = async (params: Record<string, string>) => {
    const res = await app.fetch(
      new Request(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: clientId, ...params }),
      }),
    );
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };
  const mcp = (accessToken: string) => toolsListStatus(app.fetch, base, accessToken);
  const first = await token(codeGrant(code, `${base}/mcp`));
  expect(first.status).toBe(200);
  const refresh = (refreshToken: string, asClient = clientId) =>
    token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: asClient });
  return { first: first.body, refresh, mcp };
}

// Crash trials 89, 99, 109, 144 and 194 (refresh, killed 10–17 ms in): the rotation committed, the process died before
// its answer reached the client, and the client's retry with the refresh token it still held counted as reuse and
// revoked the sign-in. Now, presented again within a minute while the pair it lost was never used, it gets that pair
// again (decisions 0028, 0041); a copy presented later, once that pair was used, is still reuse.
describe('crash trial 89 (refresh, killed 15 ms in): a refresh whose answer was lost', () => {
  let app: App;
  const clock = fixedClock(new Date('2026-11-25T12:00:00Z'));
  afterEach(async () => {
    await app.close();
  });

  it('gets the lost answer again when retried with the old token: the sign-in lives', async () => {
    app = await createTestApp({ overrides: { clock } });
    const { first, refresh, mcp } = await signedIn(app);
    const lost = await refresh(first['refresh_token']!); // committed; the answer never arrives
    expect(lost.status).toBe(200);
    clock.advance(20_000); // the service restarts; the client retries
    const retried = await refresh(first['refresh_token']!);
    expect(retried.status).toBe(200);
    expect(retried.body['access_token']).toBe(lost.body['access_token']);
    expect(retried.body['refresh_token']).toBe(lost.body['refresh_token']);
    expect(Number(retried.body['expires_in'])).toBe(3600 - 20); // what is left of the pair's hour
    expect(await mcp(retried.body['access_token']!)).toBe(200);
    // The family goes on: the new refresh token rotates as usual.
    clock.advance(1_000);
    const next = await refresh(retried.body['refresh_token']!);
    expect(next.status).toBe(200);
    expect(await mcp(next.body['access_token']!)).toBe(200);
  });

  it('is reuse once the new pair was used, or after the grace minute: the sign-in is revoked', async () => {
    app = await createTestApp({ overrides: { clock } });
    const used = await signedIn(app);
    const second = await used.refresh(used.first['refresh_token']!);
    expect(await used.mcp(second.body['access_token']!)).toBe(200);
    clock.advance(1);
    const stolen = await used.refresh(used.first['refresh_token']!);
    expect([stolen.status, stolen.body['error']]).toEqual([400, 'invalid_grant']);
    expect(await used.mcp(second.body['access_token']!)).toBe(401);
    await app.close();

    app = await createTestApp({ overrides: { clock } });
    const late = await signedIn(app);
    const pair = await late.refresh(late.first['refresh_token']!);
    clock.advance(61_000);
    expect((await late.refresh(late.first['refresh_token']!)).body['error']).toBe('invalid_grant');
    expect((await late.refresh(pair.body['refresh_token']!)).body['error']).toBe('invalid_grant');
  });
});

// Found by a probe: six refreshes of one token sent at once (as the MCP SDKs send them, one per request that got a
// 401) gave one 200 and five 400s, and the five revoked the sign-in, the winner's new pair with it. The SDKs drop
// their stored tokens on any invalid_grant, so even a 400 that revoked nothing would have ended the sign-in. A fixed
// clock stands for "received at the same moment"; advancing it, for "received after the answer went out".
describe('refreshes of one token sent at once (decision 0041)', () => {
  let app: App;
  const clock = fixedClock(new Date('2026-11-25T12:00:00Z'));
  afterEach(async () => {
    await app.close();
  });

  it('all get the same pair, which works and rotates on', async () => {
    app = await createTestApp({ overrides: { clock } });
    const { first, refresh, mcp } = await signedIn(app);
    const answers = await Promise.all(Array.from({ length: 6 }, () => refresh(first['refresh_token']!)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body['refresh_token'])).size).toBe(1);
    expect(new Set(answers.map((a) => a.body['access_token'])).size).toBe(1);
    expect(await mcp(answers[0]!.body['access_token']!)).toBe(200);
    const next = await refresh(answers[0]!.body['refresh_token']!);
    expect(next.status).toBe(200);
    expect(await mcp(next.body['access_token']!)).toBe(200);
  });

  it('one received no later than the rotation gets the pair even once it was used; one received later is reuse', async () => {
    app = await createTestApp({ overrides: { clock } });
    const { first, refresh, mcp } = await signedIn(app);
    // The clock stands still: the straggler was received in the same millisecond as the rotation, so before its
    // answer could have reached anyone, and the client used that answer before the straggler was served.
    const winner = await refresh(first['refresh_token']!);
    expect(await mcp(winner.body['access_token']!)).toBe(200);
    const straggler = await refresh(first['refresh_token']!);
    expect([straggler.status, straggler.body['refresh_token']]).toEqual([200, winner.body['refresh_token']]);
    clock.advance(1);
    const late = await refresh(first['refresh_token']!);
    expect([late.status, late.body['error']]).toEqual([400, 'invalid_grant']);
    expect(await mcp(winner.body['access_token']!)).toBe(401);
  });

  it('a duplicate received before the rotation but served after its successor was rotated on is reuse', async () => {
    app = await createTestApp({ overrides: { clock } });
    const { first, refresh, mcp } = await signedIn(app);
    const winner = await refresh(first['refresh_token']!);
    const next = await refresh(winner.body['refresh_token']!);
    expect(next.status).toBe(200);
    const late = await refresh(first['refresh_token']!);
    expect([late.status, late.body['error']]).toEqual([400, 'invalid_grant']);
    expect(await mcp(next.body['access_token']!)).toBe(401);
  });

  it('a rotated-away token presented by another client is reuse even within the window', async () => {
    app = await createTestApp({ overrides: { clock } });
    const { first, refresh, mcp } = await signedIn(app);
    const winner = await refresh(first['refresh_token']!);
    const reg = await app.fetch(
      new Request(`${app.config.baseUrl}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: ['http://127.0.0.1:9/callback'],
          token_endpoint_auth_method: 'none',
        }),
      }),
    );
    const other = ((await reg.json()) as { client_id: string }).client_id;
    const copy = await refresh(first['refresh_token']!, other);
    expect([copy.status, copy.body['error']]).toEqual([400, 'invalid_grant']);
    expect(await mcp(winner.body['access_token']!)).toBe(401);
  });
});
