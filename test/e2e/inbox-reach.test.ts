import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { wholeAccount } from '../../src/core/auth/inbox-reach.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { addWorkInbox, appsClosedAfterEach, callUnlisted, listedTools } from '../support/agent-rpc.ts';
import { oauthAccessToken } from '../support/oauth-code.ts';
import { createTestApp } from '../support/test-app.ts';
import { expectToolError, expectToolOk, firstAttachmentLink, toolCaller } from '../support/tool-caller.ts';
import { setUpOwner, type WebClient } from '../support/web-client.ts';

// Decision 0142: which inboxes the person lets each agent reach. Every inbox unless they tick some; an inbox out of
// reach is, to that agent, not there — not listed, not found, nor anything that leads to it (its messages, drafts,
// undo handles, download links, a lease) — and what every inbox shares (VIPs, the triage profile, the send switch,
// adding inboxes) is not its to change. On MCP and REST, from the next request on, on every node.

const EVERY_POWER = ['tidy', 'screen', 'draft', 'unsubscribe', 'setup'];
const SPANNING = ['add_inbox', 'add_vip', 'propose_connection', 'remove_vip', 'set_send_enabled'];

/** The fields that choose inboxes on a form: every inbox, or exactly `ids` (maybe none). */
const reachFields = (ids: readonly string[] | 'every') =>
  ids === 'every'
    ? { choosing_inboxes: '1', inbox_reach: 'every' }
    : { choosing_inboxes: '1', inbox_reach: 'only', inbox: [...ids] };

/** Makes a key on the Advanced page with every power and this reach; returns the key and its id. */
async function keyReaching(web: WebClient, name: string, ids: readonly string[] | 'every') {
  await web.get('/settings/advanced');
  await web.post('/settings/advanced/keys', {
    name,
    choosing_powers: '1',
    power: EVERY_POWER,
    ...reachFields(ids),
  });
  await web.get('/settings/advanced');
  const key = /itk_[a-z0-9]{40}/.exec(web.lastHtml)?.[0];
  const id = new RegExp(`<tr data-key-id="(key_[a-z0-9]{20})">\\s*<td>${name}</td>`).exec(web.lastHtml)?.[1];
  if (key === undefined || id === undefined) throw new Error('no key shown');
  return { key, id };
}

const inboxIds = (r: Record<string, unknown>) => (r['inboxes'] as { id: string }[]).map((i) => i.id).sort();

describe.each(['sqlite', 'postgres'] as const)('which inboxes an agent may reach, on %s', (engine) => {
  const boot = appsClosedAfterEach();
  const setUp = async () => {
    const pgUrl = engine === 'postgres' ? await freshPgDatabase() : undefined;
    const app = await boot(pgUrl);
    const web = await setUpOwner(app);
    await app.services.accounts.setPlan('owner@example.test', 'pro');
    const full = await keyReaching(web, 'Everything', 'every');
    const all = toolCaller(app, full.key);
    const demoId = inboxIds(expectToolOk(await all('list_inboxes')))[0]!;
    expectToolOk(await all('sync_inbox', { inboxId: demoId }));
    const workId = await addWorkInbox(app);
    return { app, web, pgUrl, full, all, demoId, workId };
  };

  it('an API key reaches only the inboxes ticked: the others, and all that leads to them, are not there for it', async () => {
    const { app, web, all, demoId, workId } = await setUp();
    const messages = expectToolOk(await all('list_messages', { inboxId: demoId, limit: 5 }))['messages'] as {
      messageId: string;
    }[];
    const [first, second] = messages.map((m) => m.messageId);
    // What another agent left in the demo inbox: a draft, an archived message with its undo handle, an override.
    const draftId = (
      expectToolOk(
        await all('create_draft', { inboxId: demoId, to: 'sam@example.test', subject: 'Hi', text: 'Zebra.' }),
      )['draft'] as { id: string }
    ).id;
    const archived = expectToolOk(
      await all('archive_messages', { inboxId: demoId, messageIds: [first], confirmed: true }),
    );
    expectToolOk(
      await all('update_triage_profile', {
        patch: { inboxes: { [demoId]: { cadence: { everyHours: 2 } } } },
      }),
    );

    const work = await keyReaching(web, 'Work agent', [workId]);
    expect(web.lastHtml).toContain('everything; only Work');
    const call = toolCaller(app, work.key);

    // Listed: only Work, and no tool that changes what every inbox shares, though it holds every power.
    expect(inboxIds(expectToolOk(await call('list_inboxes')))).toEqual([workId]);
    const tools = await listedTools(app, work.key);
    expect(tools).toHaveLength(48 - SPANNING.length);
    for (const name of SPANNING) expect(tools).not.toContain(name);
    const vip = await callUnlisted(app, work.key, 'add_vip', { email: 'boss@example.test', confirmed: true });
    expect(vip.structuredContent).toMatchObject({ error: 'not_allowed', details: { needs: 'every_inbox' } });

    // The demo inbox is not found, however it is named.
    expectToolError(await call('list_messages', { inboxId: demoId }), 'inbox_not_found');
    expectToolError(await call('get_message', { inboxId: demoId, messageId: second }), 'inbox_not_found');
    expectToolError(await call('get_connection_status', { inboxId: demoId }), 'inbox_not_found');
    expectToolError(
      await call('begin_triage', { inboxId: demoId, agentLabel: 'Work agent' }),
      'inbox_not_found',
    );
    expectToolError(
      await call('act_on_messages', { action: 'archive', items: [{ inboxId: demoId, messageId: second }] }),
      'inbox_not_found',
    );
    expectToolError(
      await call('create_draft', { inboxId: demoId, to: 'sam@example.test', subject: 'Hi', text: 'Zebra.' }),
      'inbox_not_found',
    );
    expectToolError(await call('show_draft', { inboxId: demoId, draftId }), 'inbox_not_found');
    expectToolError(await call('show_draft', { inboxId: workId, draftId }), 'invalid_arguments');
    expect(Object.keys(expectToolOk(await call('get_triage_profile'))['triageProfile'] as object)).toContain(
      'inboxes',
    );
    const profile = expectToolOk(await call('get_triage_profile'))['triageProfile'] as {
      inboxes: Record<string, unknown>;
    };
    expect(profile.inboxes).toEqual({});
    const activity = expectToolOk(await call('get_triage_activity'))['inboxes'] as { inboxId: string }[];
    expect(activity.map((a) => a.inboxId)).toEqual([workId]);
    // Another agent's undo handle in an inbox out of reach is not this agent's to use, nor to use up.
    expectToolError(await call('undo_action', { undoId: archived['undoId'] }), 'undo_unavailable');
    expect((await callUnlisted(app, work.key, 'list_vips', {})).isError).toBeFalsy();

    // REST alike.
    const rest = (path: string, init: RequestInit = {}) =>
      app.fetch(
        new Request(`${app.config.baseUrl}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${work.key}`, 'content-type': 'application/json' },
        }),
      );
    expect(inboxIds((await (await rest('/api/inboxes')).json()) as Record<string, unknown>)).toEqual([
      workId,
    ]);
    const drafted = await rest(`/api/inboxes/${demoId}/draft`, {
      method: 'POST',
      body: JSON.stringify({ to: 'sam@example.test', subject: 'Hi', text: 'Zebra.' }),
    });
    expect(drafted.status).toBe(404);
    expect(((await drafted.json()) as { error: string }).error).toBe('inbox_not_found');

    // Widened on the page: the very next request reaches both (the 5 s credential cache is cleared).
    await web.post(`/settings/advanced/keys/${work.id}/powers`, {
      choosing_powers: '1',
      power: EVERY_POWER,
      ...reachFields('every'),
    });
    expect(inboxIds(expectToolOk(await call('list_inboxes')))).toEqual([demoId, workId].sort());
    expectToolOk(await call('list_messages', { inboxId: demoId, limit: 1 }));
    expect(await listedTools(app, work.key)).toHaveLength(48);
    // No inbox at all: the key reads nothing of the mail.
    await web.post(`/settings/advanced/keys/${work.id}/powers`, { choosing_powers: '1', ...reachFields([]) });
    expect(inboxIds(expectToolOk(await call('list_inboxes')))).toEqual([]);
    await web.get('/settings/advanced');
    expect(web.lastHtml).toContain('reading only; no inbox');
    // The archive stands for the agent that made it, which reaches the demo inbox.
    expect(expectToolOk(await all('undo_action', { undoId: archived['undoId'] }))['restored']).toHaveLength(
      1,
    );
  });

  it('an agent reaching some inboxes changes their preferences and teaches screening there, and nowhere else', async () => {
    const { app, web, all, demoId, workId } = await setUp();
    type Profile = {
      defaults: { cadence: { everyHours: number }; junk: Record<string, string[]> };
      inboxes: Record<string, { cadence?: object; junk?: Record<string, string[]> }>;
    };
    const profileOf = async (caller: typeof all) =>
      expectToolOk(await caller('get_triage_profile'))['triageProfile'] as Profile;
    expectToolOk(
      await all('update_triage_profile', {
        patch: {
          defaults: { vip: { people: ['everyone.knows@corp.test'] } },
          inboxes: { [workId]: { cadence: { everyHours: 8 }, vip: { people: ['confidant@work.test'] } } },
        },
      }),
    );
    const demo = toolCaller(app, (await keyReaching(web, 'Demo agent', [demoId])).key);
    const before = await profileOf(all);
    // Another inbox's VIPs are that inbox's override, not this agent's to read either.
    const vipsOf = async (caller: typeof all) =>
      JSON.stringify(expectToolOk(await caller('list_vips'))['emails']);
    expect(await vipsOf(all)).toContain('confidant@work.test');
    expect(await vipsOf(demo)).not.toContain('confidant@work.test');
    expect(await vipsOf(demo)).toContain('everyone.knows@corp.test');

    // Its own inbox's override: changed, and the answer shows no other inbox's.
    const changed = expectToolOk(
      await demo('update_triage_profile', {
        patch: { inboxes: { [demoId]: { cadence: { everyHours: 2 } } } },
      }),
    )['triageProfile'] as Profile;
    expect(Object.keys(changed.inboxes)).toEqual([demoId]);
    expect(changed.inboxes[demoId]?.cadence).toEqual({ everyHours: 2 });
    // The defaults every inbox follows, or another inbox's override: refused, nothing saved.
    const widening = expectToolError(
      await demo('update_triage_profile', {
        patch: {
          defaults: { cadence: { everyHours: 1 } },
          inboxes: { [demoId]: { cadence: { everyHours: 3 } } },
        },
      }),
      'not_allowed',
    );
    expect(widening['details']).toEqual({ needs: 'every_inbox' });
    expectToolError(
      await demo('update_triage_profile', {
        patch: { inboxes: { [workId]: { cadence: { everyHours: 1 } } } },
      }),
      'inbox_not_found',
    );
    const after = await profileOf(all);
    expect(after.defaults).toEqual(before.defaults);
    expect(after.inboxes[workId]).toEqual(before.inboxes[workId]);
    expect(after.inboxes[demoId]?.cadence).toEqual({ everyHours: 2 });

    // Screening: what it rescues is known-good, and what it reports blocked, in its inbox only.
    type Offered = {
      inboxId: string;
      messageId: string;
      from: { address: string };
      authentication: { dmarc: string; dkim: string };
    };
    const offered = expectToolOk(await demo('screen_junk', {}))['messages'] as Offered[];
    const unsigned = offered.find(
      (m) => m.authentication.dmarc === 'none' && m.authentication.dkim === 'none',
    )!;
    const forged = offered.find((m) => m.authentication.dmarc === 'fail')!;
    expectToolOk(
      await demo('confirm_screening', {
        verdicts: [unsigned, forged].map((m) => ({
          inboxId: m.inboxId,
          messageId: m.messageId,
          verdict: 'junk',
        })),
      }),
    );
    const rows = expectToolOk(await demo('review_screened', {}))['rows'] as {
      id: string;
      sender: { address: string };
    }[];
    const rowOf = (m: Offered) => rows.find((r) => r.sender.address === m.from.address)!.id;
    const rescued = expectToolOk(await demo('rescue_screened', { inboxId: demoId, id: rowOf(forged) }));
    expect(rescued).toMatchObject({ knownGood: true, scope: 'this_inbox' });
    expect(rescued['sayToHuman']).toContain('in this inbox');
    const reported = expectToolOk(await demo('report_screened', { inboxId: demoId, id: rowOf(unsigned) }));
    const domain = unsigned.from.address.split('@')[1]!;
    expect(reported).toMatchObject({ blocked: { kind: 'domain', value: domain }, scope: 'this_inbox' });

    const taught = await profileOf(all);
    expect(taught.defaults).toEqual(before.defaults);
    expect(taught.inboxes[workId]).toEqual(before.inboxes[workId]);
    expect(taught.inboxes[demoId]?.junk).toEqual({
      knownGoodSenders: [forged.from.address],
      blockedSenders: [],
      blockedDomains: [domain],
    });
    const effective = async (inboxId: string) =>
      (expectToolOk(await all('get_triage_profile', { inboxId }))['effective'] as Profile['defaults']).junk;
    expect(await effective(workId)).toMatchObject({ knownGoodSenders: [], blockedDomains: [] });
    expect(await effective(demoId)).toMatchObject({
      knownGoodSenders: [forged.from.address],
      blockedDomains: [domain],
    });
    // The person sees the block on the console, under that inbox.
    await web.get('/settings/preferences');
    expect(web.lastHtml).toContain(domain);
  });

  it('a download link and a lease last no longer than the reach of the agent they were given to', async () => {
    const { app, web, full, all, demoId, workId } = await setUp();
    const url = await firstAttachmentLink(all, demoId);
    expect((await app.fetch(new Request(url))).status).toBe(200);
    expectToolOk(await all('begin_triage', { inboxId: demoId, agentLabel: 'Everything' }));
    const other = toolCaller(app, (await keyReaching(web, 'Second', 'every')).key);
    expectToolError(await other('begin_triage', { inboxId: demoId, agentLabel: 'Second' }), 'lease_held');

    await web.post(`/settings/advanced/keys/${full.id}/powers`, {
      choosing_powers: '1',
      power: EVERY_POWER,
      ...reachFields([workId]),
    });
    expect((await app.fetch(new Request(url))).status).toBe(410);
    expectToolOk(await other('begin_triage', { inboxId: demoId, agentLabel: 'Second' }));
  });

  it('a signed-in agent reaches what the consent allowed; Connected agents changes it on every node at once', async () => {
    const { app, web, pgUrl, demoId, workId } = await setUp();
    const consent = await web.get('/settings/advanced');
    expect(consent.status).toBe(200);
    const token = await oauthAccessToken(app, web, 'Work assistant', {
      choosing_powers: '1',
      power: EVERY_POWER,
      ...reachFields([workId]),
    });
    expect(inboxIds(expectToolOk(await toolCaller(app, token)('list_inboxes')))).toEqual([workId]);
    await web.get('/settings/agents');
    expect(web.lastHtml).toContain('everything; only Work');
    const clientId = /name="client_id" value="([^"]+)"/.exec(web.lastHtml)![1]!;

    // A second node on the same database (PostgreSQL only: SQLite is one process).
    const other = pgUrl === undefined ? app : await boot(pgUrl);
    const there = toolCaller(other, token);
    expectToolError(await there('list_messages', { inboxId: demoId }), 'inbox_not_found');
    const changed = await web.post('/settings/agents/powers', {
      client_id: clientId,
      choosing_powers: '1',
      power: EVERY_POWER,
      ...reachFields([demoId]),
    });
    expect(changed.headers.get('location')).toBe('/settings/agents?done=powers');
    expect(inboxIds(expectToolOk(await there('list_inboxes')))).toEqual([demoId]);
    expectToolOk(await there('list_messages', { inboxId: demoId, limit: 1 }));
    expectToolError(await there('get_connection_status', { inboxId: workId }), 'inbox_not_found');
  });
});

describe('keys made over REST', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('take the inboxes as a list of ids, show them, change them alone, and refuse an id the account lacks', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    const workId = await addWorkInbox(app);
    await web.get('/settings/advanced');
    const send = (method: string, path: string, body: unknown) =>
      web.request(path, {
        method,
        headers: { 'content-type': 'application/json', 'x-csrf-token': web.csrf },
        body: JSON.stringify(body),
      });
    const made = await send('POST', '/api/keys', { name: 'Work', powers: ['draft'], inboxes: [workId] });
    expect(made.status).toBe(201);
    const key = (await made.json()) as {
      id: string;
      key: string;
      powers: string[];
      inboxes: string[] | null;
    };
    expect(key.inboxes).toEqual([workId]);
    expect(inboxIds(expectToolOk(await toolCaller(app, key.key)('list_inboxes')))).toEqual([workId]);
    const other = 'inbox_zzzzzzzzzzzzzzzzzzzz';
    expect((await send('POST', '/api/keys', { name: 'Bad', inboxes: [other] })).status).toBe(400);
    expect((await send('PATCH', `/api/keys/${key.id}`, { inboxes: [other] })).status).toBe(400);
    expect((await send('PATCH', `/api/keys/${key.id}`, {})).status).toBe(400);
    // Powers alone leave the inboxes as they were; inboxes null is every inbox.
    const powers = (await (
      await send('PATCH', `/api/keys/${key.id}`, { powers: ['tidy'] })
    ).json()) as typeof key;
    expect(powers).toMatchObject({ powers: ['tidy'], inboxes: [workId] });
    const every = (await (
      await send('PATCH', `/api/keys/${key.id}`, { inboxes: null })
    ).json()) as typeof key;
    expect(every).toMatchObject({ powers: ['tidy'], inboxes: null });
    expect(inboxIds(expectToolOk(await toolCaller(app, key.key)('list_inboxes')))).toHaveLength(2);
    const listedKeys = (await (await web.request('/api/keys')).json()) as { keys: (typeof key)[] };
    expect(listedKeys.keys.find((k) => k.id === key.id)?.inboxes).toBeNull();
  });

  it('a key limited to inboxes since removed keeps "only" on its page, so saving it never widens it', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    const workId = await addWorkInbox(app);
    await web.get('/settings/advanced');
    const made = await web.request('/api/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': web.csrf },
      body: JSON.stringify({ name: 'Work', inboxes: [workId] }),
    });
    const key = (await made.json()) as { id: string; key: string };
    const accountId = (await app.services.apiKeys.verify(key.key))!.principal.accountId;
    for (const inbox of await app.services.tools.inboxes.all(wholeAccount(accountId)))
      await app.services.tools.inboxes.remove(accountId, inbox.id);
    await web.get('/settings/advanced');
    expect(web.lastHtml).toContain('everything; no inbox');
    expect(new RegExp(`id="${key.id}-only"[^>]*checked`).test(web.lastHtml)).toBe(true);
    await web.post(`/settings/advanced/keys/${key.id}/powers`, {
      choosing_powers: '1',
      choosing_inboxes: '1',
      inbox_reach: 'only',
    });
    expect((await app.services.apiKeys.list(accountId)).find((k) => k.id === key.id)?.inboxes).toEqual(
      new Set(),
    );
  });
});
