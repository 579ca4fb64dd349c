import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { appsClosedAfterEach, callUnlisted, listedTools } from '../support/agent-rpc.ts';
import { authorizeQuery, oauthAccessToken } from '../support/oauth-code.ts';
import { createTestApp } from '../support/test-app.ts';
import { expectToolError, expectToolOk, toolCaller } from '../support/tool-caller.ts';
import { setUpOwner, type WebClient } from '../support/web-client.ts';

// Decision 0141: what the person lets each agent do. Every agent reads; each power — tidy, screen, draft,
// unsubscribe, setup — is the person's to give or take away, per API key and per connected agent, and what a
// credential lacks is neither listed nor callable, on MCP (both eras) and on REST.

const READING = [
  'list_inboxes',
  'get_connection_status',
  'sync_inbox',
  'list_folders',
  'list_messages',
  'show_inbox',
  'get_message',
  'search_mailbox',
  'load_older_messages',
  'get_attachment',
  'list_labels',
  'get_triage_activity',
  'list_vips',
  'get_triage_profile',
  'review_unsubscribes',
  'review_screened',
  'show_screened',
];
const TIDY = [
  'trash_message',
  'mark_as_spam',
  'archive_messages',
  'act_on_messages',
  'apply_labels',
  'remove_labels',
  'star_messages',
  'undo_action',
  'begin_triage',
  'heartbeat_triage',
  'end_triage',
];
const DRAFT = ['create_draft', 'show_draft', 'send_draft', 'update_draft_from_card', 'send_draft_from_card'];

/** Makes a key on the Advanced page with exactly these powers chosen; returns the key. */
async function keyWith(web: WebClient, name: string, powers: readonly string[]): Promise<string> {
  await web.get('/settings/advanced');
  await web.post('/settings/advanced/keys', { name, choosing_powers: '1', power: powers });
  await web.get('/settings/advanced');
  const m = /itk_[a-z0-9]{40}/.exec(web.lastHtml);
  if (m === null) throw new Error('no key shown');
  return m[0];
}

const keyId = (web: WebClient, name: string) =>
  new RegExp(`<tr data-key-id="(key_[a-z0-9]{20})">\\s*<td>${name}</td>`).exec(web.lastHtml)?.[1] ?? '';

const sorted = (...lists: string[][]) => lists.flat().sort();

describe.each(['sqlite', 'postgres'] as const)('what an agent may do, on %s', (engine) => {
  const boot = appsClosedAfterEach();

  it('an API key holds what the person chose: listed, callable and refused accordingly, changed from its next request on', async () => {
    const pgUrl = engine === 'postgres' ? await freshPgDatabase() : undefined;
    const app = await boot(pgUrl);
    const web = await setUpOwner(app);
    await app.services.accounts.setPlan('owner@example.test', 'pro');
    const key = await keyWith(web, 'Tidier', ['tidy']);
    expect(web.lastHtml).toContain('reading, tidy');

    // Listed: reading and tidying, nothing else — on the fast path and through the SDK alike.
    expect(await listedTools(app, key)).toEqual(sorted(READING, TIDY));
    expect(await listedTools(app, key, { sdk: true })).toEqual(sorted(READING, TIDY));

    // Callable: what it holds works; what it lacks is refused in words, before anything is written.
    const call = toolCaller(app, key);
    const inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await call('sync_inbox', { inboxId }));
    const draft = { inboxId, to: 'sam@example.test', subject: 'Hello', text: 'Zebra.' };
    const refused = await callUnlisted(app, key, 'create_draft', draft);
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent['error']).toBe('not_allowed');
    expect(refused.structuredContent['message']).toContain('write drafts');
    const rest = await app.fetch(
      new Request(`${app.config.baseUrl}/api/inboxes/${inboxId}/draft`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(draft),
      }),
    );
    expect(rest.status).toBe(403);
    expect(((await rest.json()) as { error: string }).error).toBe('not_allowed');
    const inboxes = await app.fetch(
      new Request(`${app.config.baseUrl}/api/inboxes`, { headers: { authorization: `Bearer ${key}` } }),
    );
    expect(inboxes.status).toBe(200);
    const drafts = await sql<{ n: number | string }>`SELECT count(*) AS n FROM drafts`.execute(app.db.kysely);
    expect(Number(drafts.rows[0]!.n)).toBe(0);
    const activity = await web.get('/settings/activity');
    expect(activity.status).toBe(200);
    expect(web.lastHtml).toContain('refused, you have not allowed this agent to do that');

    // Changed on the page: the very next request holds the new powers (the 5 s credential cache is cleared).
    await web.get('/settings/advanced');
    const id = keyId(web, 'Tidier');
    expect(id).not.toBe('');
    await web.post(`/settings/advanced/keys/${id}/powers`, {
      choosing_powers: '1',
      power: ['tidy', 'draft'],
    });
    expect(await listedTools(app, key)).toEqual(sorted(READING, TIDY, DRAFT));
    expectToolOk(await toolCaller(app, key)('create_draft', draft));

    // Reading only: every box cleared.
    await web.post(`/settings/advanced/keys/${id}/powers`, { choosing_powers: '1' });
    expect(await listedTools(app, key)).toEqual(sorted(READING));
    await web.get('/settings/advanced');
    expect(web.lastHtml).toContain('reading only');
    await web.get('/settings/browsers');
    expect(web.lastHtml).toContain('What an agent may do changed');

    // A key made as before there was a choice (a form with only a name) holds everything.
    await web.post('/settings/advanced/keys', { name: 'Old form' });
    await web.get('/settings/advanced');
    const everything = /itk_[a-z0-9]{40}/.exec(web.lastHtml)![0];
    expect(await listedTools(app, everything)).toHaveLength(48);
  });

  it('a signed-in agent holds what the consent allowed; Connected agents changes it on every node at once', async () => {
    const pgUrl = engine === 'postgres' ? await freshPgDatabase() : undefined;
    const app = await boot(pgUrl);
    const web = await setUpOwner(app);
    const token = await oauthAccessToken(app, web, 'Drafting agent', {
      choosing_powers: '1',
      power: ['draft'],
    });
    expect(await listedTools(app, token)).toEqual(sorted(READING, DRAFT));
    expect(
      (await callUnlisted(app, token, 'act_on_messages', { action: 'archive', items: [] })).structuredContent[
        'error'
      ],
    ).toBe('not_allowed');
    await web.get('/settings/agents');
    expect(web.lastHtml).toContain('reading, drafts');
    // Signing in again, the consent page starts from what the person let it do, not from everything.
    const clientOf = /name="client_id" value="([^"]+)"/.exec(web.lastHtml)![1]!;
    const consent = await web.get(
      `/oauth/authorize?${authorizeQuery(clientOf, `${app.config.baseUrl}/mcp`)}`,
    );
    await web.get(consent.headers.get('location') ?? '');
    expect(/<input[^>]*value="draft"[^>]*checked/.test(web.lastHtml)).toBe(true);
    expect(/<input[^>]*value="tidy"[^>]*checked/.test(web.lastHtml)).toBe(false);
    await web.get('/settings/agents');

    // A second node on the same database (PostgreSQL only: SQLite is one process).
    const other = pgUrl === undefined ? app : await boot(pgUrl);
    expect(await listedTools(other, token)).toEqual(sorted(READING, DRAFT));
    const clientId = /name="client_id" value="([^"]+)"/.exec(web.lastHtml)![1]!;
    const changed = await web.post('/settings/agents/powers', {
      client_id: clientId,
      choosing_powers: '1',
      power: ['tidy', 'screen', 'draft', 'unsubscribe', 'setup'],
    });
    expect(changed.headers.get('location')).toBe('/settings/agents?done=powers');
    expect(await listedTools(other, token)).toHaveLength(48);
    expectToolError(
      await toolCaller(other, token)('act_on_messages', { action: 'archive', items: [] }),
      'invalid_arguments',
    );
    await web.get('/settings/agents');
    expect(web.lastHtml).toContain('everything');
  });
});

describe('keys made over REST', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('take powers as a list, show them, and refuse a name that is not one', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    await web.get('/settings/advanced');
    const post = (body: unknown) =>
      web.request('/api/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': web.csrf },
        body: JSON.stringify(body),
      });
    const made = await post({ name: 'Reader', powers: [] });
    expect(made.status).toBe(201);
    const body = (await made.json()) as { key: string; powers: string[] };
    expect(body.powers).toEqual([]);
    expect(await listedTools(app, body.key)).toEqual(sorted(READING));
    expect((await post({ name: 'Bad', powers: ['send'] })).status).toBe(400);
  });
});
