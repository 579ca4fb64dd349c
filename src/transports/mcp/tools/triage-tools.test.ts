import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../app.ts';
import { agentOn, type toolCaller, type ToolResult } from '../../../../test/support/tool-caller.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';

// VIPs, the triage profile, archive (google), drafts and sending, end to end on the demo inbox.
describe('triage tools on the demo inbox', () => {
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;

  beforeAll(async () => {
    app = await createTestApp({ config: { syncWindow: 300 } });
    ({ call } = await agentOn(app));
    const list = await call('list_inboxes');
    inboxId = (list.body['inboxes'] as { id: string; isDemo: boolean }[]).find((i) => i.isDemo)!.id;
    ok(await call('sync_inbox', { inboxId }));
  });
  afterAll(async () => {
    await app.close();
  });

  function ok(r: ToolResult) {
    expect(r.isError, JSON.stringify(r.body)).toBe(false);
    return r.body;
  }
  function failed(r: ToolResult, code: string) {
    expect(r.isError, JSON.stringify(r.body)).toBe(true);
    expect(r.body['error']).toBe(code);
    return r.body;
  }
  async function messagesIn(folder: string) {
    ok(await call('sync_inbox', { inboxId, folders: ['inbox', 'archive', 'drafts', 'sent'] }));
    return (await call('list_messages', { inboxId, folder, limit: 200 })).body['messages'] as {
      messageId: string;
      subject: string;
      from: { address: string };
    }[];
  }

  it('VIPs: added normalised, invalid entries refuse the call, removal is previewed without confirmed', async () => {
    expect(ok(await call('list_vips'))).toEqual({ emails: [], domains: [] });
    const bad = failed(
      await call('add_vip', { emails: ['ok@x.test', 'not an email'], domains: ['-bad-.test'] }),
      'invalid_arguments',
    );
    expect(bad['details']).toEqual({ invalid: ['not an email', '-bad-.test'] });
    expect(ok(await call('list_vips'))).toEqual({ emails: [], domains: [] });
    failed(await call('add_vip', {}), 'invalid_arguments');
    ok(await call('add_vip', { emails: [' Boss@Corp.TEST '], domains: ['@Example.ORG.'] }));
    expect(ok(await call('list_vips'))).toEqual({ emails: ['boss@corp.test'], domains: ['example.org'] });

    const preview = ok(await call('remove_vip', { emails: ['boss@corp.test', 'stranger@x.test'] }));
    expect(preview).toMatchObject({
      removed: false,
      wouldRemove: { emails: ['boss@corp.test'], domains: [] },
      notOnList: { emails: ['stranger@x.test'] },
    });
    expect(ok(await call('list_vips'))).toEqual({ emails: ['boss@corp.test'], domains: ['example.org'] });
    ok(await call('remove_vip', { emails: ['boss@corp.test'], confirmed: true }));
    ok(await call('remove_vip', { domains: ['example.org'], confirmed: true }));
    expect(ok(await call('list_vips'))).toEqual({ emails: [], domains: [] });
  });

  it('a VIP domain covers its subdomains, and profile vip.people counts as VIP too', async () => {
    const [m] = await messagesIn('inbox');
    const address = m!.from.address;
    const domain = address.slice(address.indexOf('@') + 1);
    ok(await call('add_vip', { domains: [domain.split('.').slice(-2).join('.')] }));
    failed(await call('trash_message', { inboxId, messageId: m!.messageId }), 'vip_confirmation_required');
    ok(await call('remove_vip', { domains: [domain.split('.').slice(-2).join('.')], confirmed: true }));
    ok(await call('update_triage_profile', { patch: { defaults: { vip: { people: [address] } } } }));
    failed(await call('mark_as_spam', { inboxId, messageId: m!.messageId }), 'vip_confirmation_required');
    ok(await call('update_triage_profile', { patch: { defaults: { vip: { people: [] } } } }));
    const trashed = ok(await call('trash_message', { inboxId, messageId: m!.messageId }));
    ok(await call('undo_action', { undoId: trashed['undoId'] }));
  });

  it('the profile: defaults, effective per inbox, validated deep-merge patches', async () => {
    const first = ok(await call('get_triage_profile'));
    expect(first['triageProfile']).toMatchObject({
      defaults: { cadence: { everyHours: 4 }, quietHours: null },
      inboxes: {},
    });
    expect(first['effective']).toBeUndefined();
    ok(
      await call('update_triage_profile', {
        patch: { inboxes: { [inboxId]: { cadence: { everyHours: 1 } } } },
      }),
    );
    const withInbox = ok(await call('get_triage_profile', { inboxId }));
    expect(withInbox['effective']).toMatchObject({
      cadence: { everyHours: 1 },
      junk: { screenUnknownSenders: true },
    });
    expect(withInbox['triageProfile']).toMatchObject({ defaults: { cadence: { everyHours: 4 } } });

    const unknown = failed(
      await call('update_triage_profile', { patch: { defaults: { cadance: { everyHours: 2 } } } }),
      'invalid_arguments',
    );
    expect(unknown['message']).toContain('unknown field: cadance');
    expect(unknown['details']).toEqual({ issues: [{ path: 'defaults', message: 'unknown field: cadance' }] });
    failed(
      await call('update_triage_profile', {
        patch: { defaults: { quietHours: { start: '9am', end: '17:00', timezone: 'UTC' } } },
      }),
      'invalid_arguments',
    );
    failed(
      await call('update_triage_profile', { patch: { inboxes: { inbox_zzzzzzzzzzzzzzzzzzzz: {} } } }),
      'inbox_not_found',
    );
    failed(await call('update_triage_profile', { patch: 'everyHours=1' }), 'invalid_arguments');
    failed(await call('get_triage_profile', { inboxId: 'inbox_zzzzzzzzzzzzzzzzzzzz' }), 'inbox_not_found');
    // Nothing of the refused patches was saved.
    expect(ok(await call('get_triage_profile', { inboxId }))).toEqual(withInbox);
    ok(await call('update_triage_profile', { patch: { inboxes: {} } }));
  });

  it('archive_messages on a google inbox: confirmed: true required, VIP skipped, undoable', async () => {
    const three = (await messagesIn('inbox')).slice(0, 3);
    const ids = three.map((m) => m.messageId);
    failed(await call('archive_messages', { inboxId, messageIds: ids }), 'confirmation_required');
    failed(
      await call('archive_messages', { inboxId, messageIds: ids, confirmed: false }),
      'confirmation_required',
    );
    const done = ok(await call('archive_messages', { inboxId, messageIds: ids, confirmed: true }));
    expect((done['changed'] as unknown[]).length).toBe(3);
    const archived = (await messagesIn('archive')).map((m) => m.messageId);
    expect(archived).toEqual(expect.arrayContaining(ids));
    ok(await call('undo_action', { undoId: done['undoId'] }));
    const inbox = (await messagesIn('inbox')).map((m) => m.messageId);
    expect(inbox).toEqual(expect.arrayContaining(ids));
  });

  it('drafts and sending on the demo inbox: nothing leaves, a sent copy lands in its Sent folder', async () => {
    const draftsBefore = (await messagesIn('drafts')).length;
    const plain = ok(
      await call('create_draft', {
        inboxId,
        to: 'friend@example.test',
        subject: 'Lunch?',
        text: 'Thursday at noon?',
      }),
    );
    expect(plain).toMatchObject({
      sendAvailable: false,
      draft: { isDemo: true, provider: 'google', to: 'friend@example.test', threadId: null },
    });
    expect(plain['approvalCode']).toBeUndefined();
    expect((await messagesIn('drafts')).length).toBe(draftsBefore + 1);

    failed(await call('set_send_enabled', { enabled: true }), 'confirmation_required');
    ok(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    const [parent] = await messagesIn('inbox');
    const threadId =
      ((await call('get_message', { inboxId, messageId: parent!.messageId })).body['threadId'] as
        string | null) ?? undefined;
    const reply = ok(
      await call('create_draft', {
        inboxId,
        to: 'friend@example.test',
        subject: 'Re: plans',
        text: 'Sounds good.',
        ...(threadId !== undefined && { threadId }),
      }),
    );
    expect(reply).toMatchObject({
      sendAvailable: true,
      pendingSendId: expect.stringMatching(/^ps_[a-z0-9]{20}$/) as unknown,
    });
    const draft = reply['draft'] as { id: string };
    const shown = ok(await call('show_draft', { inboxId, draftId: draft.id }));
    expect(shown['text']).toBe('To: friend@example.test\nSubject: Re: plans\n\nSounds good.');
    failed(await call('show_draft', { inboxId, draftId: 'draft_zzzzzzzzzzzzzzzzzzzz' }), 'invalid_arguments');

    // The person's profile can demand confirmation in the app for every send.
    ok(
      await call('update_triage_profile', {
        patch: { defaults: { sending: { requireInAppConfirmation: true } } },
      }),
    );
    const args = {
      pendingSendId: reply['pendingSendId'],
      approvalCode: reply['approvalCode'],
      humanApprovedInChat: true,
    };
    failed(await call('send_draft', args), 'human_approval_required');
    ok(
      await call('update_triage_profile', {
        patch: { defaults: { sending: { requireInAppConfirmation: false } } },
      }),
    );

    const sentBefore = (await messagesIn('sent')).length;
    const sent = ok(
      await call('send_draft', { ...args, confirmTo: 'Friend@Example.test', confirmSubject: 'Re: plans' }),
    );
    expect(sent).toMatchObject({ sent: true, draft: { id: draft.id, isDemo: true } });
    const sentNow = await messagesIn('sent');
    expect(sentNow.length).toBe(sentBefore + 1);
    expect(sentNow.some((m) => m.subject === 'Re: plans')).toBe(true);
    expect((await messagesIn('drafts')).length).toBe(draftsBefore + 1);
    expect(ok(await call('show_draft', { inboxId, draftId: draft.id }))).toMatchObject({
      draft: { status: 'sent' },
    });
    failed(await call('send_draft', args), 'approval_used');
    ok(await call('set_send_enabled', { enabled: false, humanConfirmedInChat: true }));
  });
});
