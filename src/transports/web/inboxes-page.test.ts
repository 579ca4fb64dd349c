import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import { agentOn } from '../../../test/support/tool-caller.ts';
import { createTestApp } from '../../../test/support/test-app.ts';

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('the Inboxes page', () => {
  it('pauses (tools answer inbox_paused), resumes, starts a password link, and removes', async () => {
    app = await createTestApp();
    const { web, call } = await agentOn(app);
    const demo = ((await call('list_inboxes')).body['inboxes'] as { id: string }[])[0]!.id;
    const added = await call('add_inbox', {
      label: 'Work',
      provider: 'imap',
      email: 'me@example.org',
      imapHost: 'imap.example.org',
    });
    const work = (added.body['inbox'] as { id: string }).id;

    await web.get('/inboxes');
    expect(web.lastHtml).toContain('Demo inbox');
    expect(web.lastHtml).toContain('Not connected');
    await web.post(`/inboxes/${demo}/pause`, {});
    expect((await call('list_messages', { inboxId: demo })).body).toMatchObject({ error: 'inbox_paused' });
    expect((await call('get_connection_status', { inboxId: demo })).body).toMatchObject({
      connectionStatus: 'paused',
      canSyncNow: false,
    });
    await web.get('/inboxes');
    await web.post(`/inboxes/${demo}/resume`, {});
    expect((await call('list_messages', { inboxId: demo })).isError).toBe(false);

    await web.get('/inboxes');
    const connect = await web.post(`/inboxes/${work}/connect`, {});
    expect(connect.headers.get('location')).toMatch(/^\/connect\/imap\?token=cap_[a-z0-9]{40}$/);

    // Its override in the triage profile goes with it (decision 0117); the other inbox's stays.
    const own = { junk: { knownGoodSenders: ['pal@mate.test'] } };
    const overrides = { [work]: own, [demo]: own };
    expect((await call('update_triage_profile', { patch: { inboxes: overrides } })).isError).toBe(false);
    await web.get('/inboxes');
    await web.post(`/inboxes/${work}/remove`, {});
    expect((await call('get_connection_status', { inboxId: work })).body).toMatchObject({
      error: 'inbox_not_found',
    });
    const profile = (await call('get_triage_profile', {})).body['triageProfile'] as { inboxes: object };
    expect(profile.inboxes).toEqual({ [demo]: own });
  });

  it('another account cannot pause or remove an inbox it does not own', async () => {
    app = await createTestApp();
    const { call } = await agentOn(app);
    const demo = ((await call('list_inboxes')).body['inboxes'] as { id: string }[])[0]!.id;
    const { invitedAccount } = await import('../../../test/support/web-client.ts');
    const other = await invitedAccount(app, 'other@example.test');
    await other.get('/inboxes');
    await other.post(`/inboxes/${demo}/pause`, {});
    await other.get('/inboxes');
    await other.post(`/inboxes/${demo}/remove`, {});
    expect((await call('get_connection_status', { inboxId: demo })).body).toMatchObject({
      connectionStatus: 'connected',
    });
  });
});
