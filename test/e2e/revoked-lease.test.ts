import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { oauthAccessToken } from '../support/oauth-code.ts';
import { createTestApp } from '../support/test-app.ts';
import {
  agentOn,
  expectToolError,
  expectToolOk,
  toolCaller,
  toolsListStatus,
} from '../support/tool-caller.ts';
import { createKeyViaPage, type WebClient } from '../support/web-client.ts';

// Decision 0130: a triage lease outlived the credential holding it. The person disconnected an agent that was
// trashing their mail — and for the rest of its five-minute lease their own Undo under Activity was refused ("An agent
// is tidying this inbox right now"), and every other agent was told `lease_held`, naming the agent just disconnected.
describe.each(['sqlite', 'postgres'] as const)('a lease whose credential stops working, on %s', (engine) => {
  const apps: App[] = [];
  afterEach(async () => {
    for (const a of apps.splice(0)) await a.close();
  });

  async function setUp() {
    const pgUrl = engine === 'postgres' ? await freshPgDatabase() : undefined;
    const app = await createTestApp(pgUrl === undefined ? {} : { pgUrl });
    apps.push(app);
    const { web, key } = await agentOn(app);
    const rogue = toolCaller(app, key);
    const inboxId = (expectToolOk(await rogue('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await rogue('sync_inbox', { inboxId }));
    return { app, web, key, rogue, inboxId };
  }

  /** The rogue agent takes the lease and trashes a message; the undo handle. */
  async function trashUnderLease(rogue: ReturnType<typeof toolCaller>, inboxId: string): Promise<string> {
    expectToolOk(await rogue('begin_triage', { inboxId, agentLabel: 'rogue agent', force: true }));
    const [m] = expectToolOk(await rogue('list_messages', { inboxId, limit: 1 }))['messages'] as {
      messageId: string;
    }[];
    return expectToolOk(await rogue('trash_message', { inboxId, messageId: m!.messageId }))[
      'undoId'
    ] as string;
  }

  async function undoInActivity(web: WebClient, undoId: string): Promise<string | null> {
    await web.get('/settings/activity');
    return (await web.post('/settings/activity/undo', { undoId })).headers.get('location');
  }

  it('a revoked key’s lease ends: the person’s Undo works at once, and another agent can begin', async () => {
    const { app, web, key, rogue, inboxId } = await setUp();
    const helperKey = await createKeyViaPage(web, 'helper');
    const undoId = await trashUnderLease(rogue, inboxId);
    // The lease keeps the person's Undo out while the agent works: that rule stands, and the page says how to stop it.
    expect(await undoInActivity(web, undoId)).toBe('/settings/activity?error=lease_held');
    await web.get('/settings/activity?error=lease_held');
    expect(web.lastHtml).toContain('or stop that agent now (disconnect it under Agents, or revoke its key');
    const leaseNow = async () =>
      (
        expectToolOk(await toolCaller(app, helperKey)('get_triage_activity', { inboxId }))['inboxes'] as {
          lease: { agentLabel: string } | null;
        }[]
      )[0]!.lease;
    expect(await leaseNow()).toMatchObject({ agentLabel: expect.stringContaining('rogue agent') as string });

    const account = (await app.stores.accounts.findByEmail('owner@example.test'))!;
    const keyId = (await app.services.apiKeys.list(account.id)).find((k) => k.name === 'agent')!.id;
    await web.get('/settings/advanced');
    await web.post(`/settings/advanced/keys/${keyId}/revoke`, {});
    expect(await toolsListStatus((r) => app.fetch(r), app.config.baseUrl, key)).toBe(401);

    expect(await undoInActivity(web, undoId)).toBe('/settings/activity?undone=1');
    expect(await leaseNow()).toBeNull();
    expectToolOk(
      await toolCaller(app, helperKey)('begin_triage', { inboxId, agentLabel: 'helper', force: true }),
    );
  });

  // Decision 0141: the person may stop an agent changing mail without disconnecting it — its lease goes with that.
  it('taking away a key’s powers to change mail ends its lease; it may still read', async () => {
    const { app, web, key, rogue, inboxId } = await setUp();
    const helperKey = await createKeyViaPage(web, 'helper');
    const undoId = await trashUnderLease(rogue, inboxId);
    expect(await undoInActivity(web, undoId)).toBe('/settings/activity?error=lease_held');

    const account = (await app.stores.accounts.findByEmail('owner@example.test'))!;
    const keyId = (await app.services.apiKeys.list(account.id)).find((k) => k.name === 'agent')!.id;
    await web.get('/settings/advanced');
    await web.post(`/settings/advanced/keys/${keyId}/powers`, { choosing_powers: '1', power: ['draft'] });
    expect(await toolsListStatus((r) => app.fetch(r), app.config.baseUrl, key)).toBe(200);

    expect(await undoInActivity(web, undoId)).toBe('/settings/activity?undone=1');
    expectToolOk(
      await toolCaller(app, helperKey)('begin_triage', { inboxId, agentLabel: 'helper', force: true }),
    );
    expectToolOk(await rogue('list_inboxes'));
  });

  it('“Disconnect everything” ends an OAuth agent’s lease as well', async () => {
    const { app, web, inboxId } = await setUp();
    const token = await oauthAccessToken(app, web);
    const oauthAgent = toolCaller(app, token);
    const undoId = await trashUnderLease(oauthAgent, inboxId);
    const other = await createKeyViaPage(web, 'other');
    expectToolError(
      await toolCaller(app, other)('begin_triage', { inboxId, agentLabel: 'other', force: true }),
      'lease_held',
    );

    await web.get('/settings/agents');
    await web.post('/settings/agents/disconnect-all', {});
    expect(await toolsListStatus((r) => app.fetch(r), app.config.baseUrl, token)).toBe(401);
    expect(await undoInActivity(web, undoId)).toBe('/settings/activity?undone=1');
  });
});
