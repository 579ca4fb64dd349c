import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { bearer, call, createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolError } from '../support/tool-caller.ts';
import type { WebClient } from '../support/web-client.ts';

// Decision 0060: NUL (U+0000) in input is bad input on every surface, in words, before any lookup or write — the same
// on SQLite, which would keep it, and on PostgreSQL, which cannot (there each of these answered 500 before).
const NUL_REFUSED = {
  error: 'invalid_request',
  error_description: 'The request holds a NUL character (U+0000), which no field accepts.',
};

describe.each(['SQLite', 'PostgreSQL'])('NUL in input, on %s', (engine) => {
  let app: App;
  let web: WebClient;
  let agent: Awaited<ReturnType<typeof agentOn>>;
  let inboxId: string;
  beforeAll(async () => {
    app = await createTestApp(engine === 'PostgreSQL' ? { pgUrl: await freshPgDatabase() } : {});
    agent = await agentOn(app);
    web = agent.web;
    const listed = await agent.call('list_inboxes');
    inboxId = (listed.body['inboxes'] as { id: string }[])[0]!.id;
  });
  afterAll(async () => {
    await app.close();
  });

  it('an MCP argument: invalid_arguments naming where, and the tool does not run', async () => {
    const r = expectToolError(
      await agent.call('act_on_messages', {
        action: 'archive',
        items: [{ inboxId, messageId: 'msg_\u0000' }],
      }),
      'invalid_arguments',
    );
    expect(r['details']).toEqual({
      issues: [
        { path: 'items.0.messageId', message: 'holds a NUL character (U+0000), which no argument accepts' },
      ],
    });
    expectToolError(
      await agent.call('add_vip', { inboxId, address: 'a\u0000@example.test' }),
      'invalid_arguments',
    );
  });

  it('a URL, a form, the OAuth endpoints: 400 in words', async () => {
    await web.get('/settings/advanced');
    const page = await web.request(`/inboxes/inbox_%00/remove`, { method: 'POST' });
    expect(page.status).toBe(400);
    expect(await page.json()).toEqual(NUL_REFUSED);
    const form = await web.post('/settings/advanced/keys', { name: 'a\u0000b' });
    expect(form.status).toBe(400);
    expect(await form.json()).toEqual(NUL_REFUSED);

    const token = await call(app, '/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=x&client_id=%00',
    });
    expect(token.status).toBe(400);
    expect(await token.json()).toEqual({
      error: 'invalid_request',
      error_description: 'A parameter holds a NUL character (U+0000).',
    });
    const basic = await call(app, '/oauth/token', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('a%00b:secret').toString('base64')}`,
      },
      body: 'grant_type=refresh_token&refresh_token=x',
    });
    expect(basic.status).toBe(401);
    expect(((await basic.json()) as { error: string }).error).toBe('invalid_client');
    const register = await call(app, '/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'x\u0000', redirect_uris: ['http://127.0.0.1:9/callback'] }),
    });
    expect(register.status).toBe(400);
    expect(await register.json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: 'client_name holds a NUL character (U+0000).',
    });
    // Looking for NUL in a body nested ten thousand deep (it parses) must not overflow the stack: a 400, not a 500.
    const deep = await call(app, '/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"client_name":${'['.repeat(10_000)}1${']'.repeat(10_000)}}`,
    });
    expect(deep.status).toBe(400);
  });

  it('the REST API: a key name through the owner API, and the agent routes', async () => {
    const key = await web.request('/api/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': web.csrf },
      body: JSON.stringify({ name: 'a\u0000b' }),
    });
    expect(key.status).toBe(400);
    expect(((await key.json()) as { error: string }).error).toBe('invalid_request');
    const list = await call(app, `/api/inboxes/inbox_%00/draft`, { method: 'POST', ...bearer(agent.key) });
    expect(list.status).toBe(400);
  });
});
