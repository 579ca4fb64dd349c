import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../app.ts';
import { connectClient } from '../../../../test/support/mcp-clients.ts';
import {
  agentOn,
  expectToolError,
  expectToolOk,
  type toolCaller,
} from '../../../../test/support/tool-caller.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import type { WebClient } from '../../../../test/support/web-client.ts';

// VIPs, the triage profile, archive (google), drafts and sending, end to end on the demo inbox.
describe('triage tools on the demo inbox', () => {
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let key: string;
  let web: WebClient;
  let inboxId: string;

  beforeAll(async () => {
    app = await createTestApp({ config: { syncWindow: 300 } });
    ({ call, key, web } = await agentOn(app));
    const list = await call('list_inboxes');
    inboxId = (list.body['inboxes'] as { id: string; isDemo: boolean }[]).find((i) => i.isDemo)!.id;
    expectToolOk(await call('sync_inbox', { inboxId }));
  });
  afterAll(async () => {
    await app.close();
  });

  async function messagesIn(folder: string) {
    expectToolOk(await call('sync_inbox', { inboxId, folders: ['inbox', 'archive', 'drafts', 'sent'] }));
    return (await call('list_messages', { inboxId, folder, limit: 200 })).body['messages'] as {
      messageId: string;
      subject: string;
      from: { address: string };
    }[];
  }

  it('an address or a label with a character nobody sees is refused: VIPs, the profile’s lists, inboxes (decision 0106)', async () => {
    // Each looks just like boss@corp.test, a second entry the person could not tell from the first.
    const unseen = [
      'boss\u200b@corp.test',
      '\u202eboss@corp.test',
      'boss@corp\u00ad.test',
      'bo\u0007ss@corp.test',
    ];
    const bad = expectToolError(await call('add_vip', { emails: unseen }), 'invalid_arguments');
    expect(bad['details']).toEqual({ invalid: unseen });
    for (const list of ['blockedSenders', 'knownGoodSenders'])
      for (const address of unseen)
        expectToolError(
          await call('update_triage_profile', { patch: { defaults: { junk: { [list]: [address] } } } }),
          'invalid_arguments',
        );
    for (const label of ['Work\r\nPersonal', 'Work \u202elapyap', 'Work\u2066x\u2069', 'Work\u0007'])
      expectToolError(
        await call('add_inbox', {
          label,
          provider: 'imap',
          email: 'w@example.test',
          imapHost: 'imap.example.test',
        }),
        'invalid_arguments',
      );
    for (const email of unseen)
      expectToolError(
        await call('add_inbox', { label: 'Work', provider: 'imap', email, imapHost: 'imap.example.test' }),
        'invalid_arguments',
      );
    for (const agentLabel of ['bot \u202etfarc', 'bot\u2067x', 'bot\u0085'])
      expectToolError(await call('begin_triage', { inboxId, agentLabel, force: true }), 'invalid_arguments');
    expect(expectToolOk(await call('list_vips'))).toEqual({ emails: [], domains: [] });
    expect((expectToolOk(await call('list_inboxes'))['inboxes'] as unknown[]).length).toBe(1);
    // Letters beyond ASCII are addresses as before.
    expectToolOk(await call('add_vip', { emails: ['anna@müller.example'] }));
    expectToolOk(await call('remove_vip', { emails: ['anna@müller.example'], confirmed: true }));
  });

  it('VIPs: added normalised, invalid entries refuse the call, removal is previewed without confirmed', async () => {
    expect(expectToolOk(await call('list_vips'))).toEqual({ emails: [], domains: [] });
    const bad = expectToolError(
      await call('add_vip', { emails: ['ok@x.test', 'not an email'], domains: ['-bad-.test'] }),
      'invalid_arguments',
    );
    expect(bad['details']).toEqual({ invalid: ['not an email', '-bad-.test'] });
    expect(expectToolOk(await call('list_vips'))).toEqual({ emails: [], domains: [] });
    expectToolError(await call('add_vip', {}), 'invalid_arguments');
    expectToolOk(await call('add_vip', { emails: [' Boss@Corp.TEST '], domains: ['@Example.ORG.'] }));
    expect(expectToolOk(await call('list_vips'))).toEqual({
      emails: ['boss@corp.test'],
      domains: ['example.org'],
    });

    const preview = expectToolOk(await call('remove_vip', { emails: ['boss@corp.test', 'stranger@x.test'] }));
    expect(preview).toMatchObject({
      removed: false,
      wouldRemove: { emails: ['boss@corp.test'], domains: [] },
      notOnList: { emails: ['stranger@x.test'] },
    });
    expect(expectToolOk(await call('list_vips'))).toEqual({
      emails: ['boss@corp.test'],
      domains: ['example.org'],
    });
    expectToolOk(await call('remove_vip', { emails: ['boss@corp.test'], confirmed: true }));
    expectToolOk(await call('remove_vip', { domains: ['example.org'], confirmed: true }));
    expect(expectToolOk(await call('list_vips'))).toEqual({ emails: [], domains: [] });

    // Decision 0119: the list has an end; an add past it adds nothing and says so.
    const hundred = (from: number) => Array.from({ length: 100 }, (_, i) => `p${String(from + i)}@many.test`);
    for (let n = 0; n < 1000; n += 100) expectToolOk(await call('add_vip', { emails: hundred(n) }));
    expectToolOk(await call('add_vip', { emails: ['p0@many.test'] }));
    const full = expectToolError(
      await call('add_vip', { emails: ['p1000@many.test'], domains: ['many.test'] }),
      'invalid_arguments',
    );
    expect(full['message']).toMatch(
      /^The VIP list holds at most 1000 entries and has 1000; nothing was added/,
    );
    expect((expectToolOk(await call('list_vips'))['emails'] as string[]).length).toBe(1000);
    for (let n = 0; n < 1000; n += 100)
      expectToolOk(await call('remove_vip', { emails: hundred(n), confirmed: true }));
  });

  it('a VIP domain covers its subdomains, and profile vip.people counts as VIP too', async () => {
    const [m] = await messagesIn('inbox');
    const address = m!.from.address;
    const domain = address.slice(address.indexOf('@') + 1);
    expectToolOk(await call('add_vip', { domains: [domain.split('.').slice(-2).join('.')] }));
    expectToolError(
      await call('trash_message', { inboxId, messageId: m!.messageId }),
      'vip_confirmation_required',
    );
    expectToolOk(
      await call('remove_vip', { domains: [domain.split('.').slice(-2).join('.')], confirmed: true }),
    );
    expectToolOk(
      await call('update_triage_profile', { patch: { defaults: { vip: { people: [address] } } } }),
    );
    expectToolError(
      await call('mark_as_spam', { inboxId, messageId: m!.messageId }),
      'vip_confirmation_required',
    );
    // vip.people is the VIP list too: list_vips shows it, and it leaves only the way the list does (decision 0102).
    expect(expectToolOk(await call('list_vips'))).toEqual({ emails: [address], domains: [] });
    const dropped = expectToolError(
      await call('update_triage_profile', { patch: { defaults: { vip: { people: [] } } } }),
      'vip_confirmation_required',
    );
    expect(dropped['details']).toEqual({ entries: [address] });
    expect(dropped['message']).toMatch(/remove_vip/);
    await web.get('/settings/activity');
    expect(web.lastHtml).toContain('Tried to take VIPs off your triage profile without asking you: refused.');
    // Nor by an inbox's own list, which replaces the defaults' for that inbox.
    expectToolError(
      await call('update_triage_profile', {
        patch: { inboxes: { [inboxId]: { vip: { people: ['someone-else@corp.test'] } } } },
      }),
      'vip_confirmation_required',
    );
    expect(
      (expectToolOk(await call('get_triage_profile', { inboxId }))['effective'] as { vip: unknown })['vip'],
    ).toEqual({ people: [address] });
    expectToolError(
      await call('trash_message', { inboxId, messageId: m!.messageId }),
      'vip_confirmation_required',
    );
    // Adding stays the agent's to do.
    expectToolOk(
      await call('update_triage_profile', {
        patch: { inboxes: { [inboxId]: { vip: { people: [address, 'cfo@corp.test'] } } } },
      }),
    );
    expect(
      expectToolOk(await call('remove_vip', { emails: [address.toUpperCase(), 'cfo@corp.test'] })),
    ).toMatchObject({ removed: false, wouldRemove: { emails: [address, 'cfo@corp.test'] } });
    expectToolOk(await call('remove_vip', { emails: [address, 'cfo@corp.test'], confirmed: true }));
    expect(expectToolOk(await call('list_vips'))).toEqual({ emails: [], domains: [] });
    expect(expectToolOk(await call('get_triage_profile'))['triageProfile']).toMatchObject({
      defaults: { vip: { people: [] } },
      inboxes: { [inboxId]: { vip: { people: [] } } },
    });
    const trashed = expectToolOk(await call('trash_message', { inboxId, messageId: m!.messageId }));
    expectToolOk(await call('undo_action', { undoId: trashed['undoId'] }));
    expectToolOk(await call('update_triage_profile', { patch: { inboxes: {} } }));
  });

  it('in-app confirmation: an agent can turn it on, for every inbox or one, but never off; the person can', async () => {
    const inApp = async (scope?: string) =>
      (
        expectToolOk(await call('get_triage_profile', scope === undefined ? {} : { inboxId: scope }))[
          scope === undefined ? 'triageProfile' : 'effective'
        ] as { defaults?: { sending: unknown }; sending?: unknown }
      )[scope === undefined ? 'defaults' : 'sending'];
    expectToolOk(
      await call('update_triage_profile', {
        patch: { inboxes: { [inboxId]: { sending: { requireInAppConfirmation: true } } } },
      }),
    );
    const off = expectToolError(
      await call('update_triage_profile', {
        patch: { inboxes: { [inboxId]: { sending: { requireInAppConfirmation: false } } } },
      }),
      'human_approval_required',
    );
    expect(off['details']).toEqual({ scopes: [inboxId] });
    expect(off['sayToHuman']).toMatch(/Settings → Sending, VIPs and triage/);
    expect(await inApp(inboxId)).toEqual({ requireInAppConfirmation: true });
    expectToolOk(
      await call('update_triage_profile', {
        patch: { defaults: { sending: { requireInAppConfirmation: true } } },
      }),
    );
    // Off in the defaults alone still takes it off every inbox that follows them.
    expectToolError(
      await call('update_triage_profile', {
        patch: {
          defaults: { cadence: { everyHours: 2 }, sending: { requireInAppConfirmation: false } },
        },
      }),
      'human_approval_required',
    );
    expect(await inApp()).toMatchObject({
      cadence: { everyHours: 4 },
      sending: { requireInAppConfirmation: true },
    });
    // The person sees the attempts in Activity, in words.
    await web.get('/settings/activity');
    expect(web.lastHtml).toContain(
      'Tried to turn off confirming sends and unsubscribes in the app: refused, only you can do that.',
    );
    // The person's own switch, on the console, turns it off everywhere.
    await web.get('/settings/preferences');
    expect(web.lastHtml).toContain('Confirming in the app is <strong>on</strong>');
    const res = await web.post('/settings/preferences/confirm-in-app', { required: 'off' });
    expect(res.status).toBe(303);
    expect(await inApp()).toMatchObject({ sending: { requireInAppConfirmation: false } });
    expect(await inApp(inboxId)).toEqual({ requireInAppConfirmation: false });
  });

  it('the profile: defaults, effective per inbox, validated deep-merge patches', async () => {
    const first = expectToolOk(await call('get_triage_profile'));
    expect(first['triageProfile']).toMatchObject({
      defaults: { cadence: { everyHours: 4 }, quietHours: null },
      inboxes: {},
    });
    expect(first['effective']).toBeUndefined();
    expectToolOk(
      await call('update_triage_profile', {
        patch: { inboxes: { [inboxId]: { cadence: { everyHours: 1 } } } },
      }),
    );
    const withInbox = expectToolOk(await call('get_triage_profile', { inboxId }));
    expect(withInbox['effective']).toMatchObject({
      cadence: { everyHours: 1 },
      junk: { screenUnknownSenders: true },
    });
    expect(withInbox['triageProfile']).toMatchObject({ defaults: { cadence: { everyHours: 4 } } });

    const unknown = expectToolError(
      await call('update_triage_profile', { patch: { defaults: { cadance: { everyHours: 2 } } } }),
      'invalid_arguments',
    );
    // Refused by the published patch schema now, before ProfileService checks the merged profile as well.
    expect(unknown['message']).toContain('patch.defaults: Unrecognized key: "cadance"');
    expect(unknown['details']).toEqual({
      issues: [{ path: 'patch.defaults', message: 'Unrecognized key: "cadance"' }],
    });
    expectToolError(
      await call('update_triage_profile', {
        patch: { defaults: { quietHours: { start: '9am', end: '17:00', timezone: 'UTC' } } },
      }),
      'invalid_arguments',
    );
    expectToolError(
      await call('update_triage_profile', { patch: { inboxes: { inbox_zzzzzzzzzzzzzzzzzzzz: {} } } }),
      'inbox_not_found',
    );
    expectToolError(await call('update_triage_profile', { patch: 'everyHours=1' }), 'invalid_arguments');
    expectToolError(
      await call('get_triage_profile', { inboxId: 'inbox_zzzzzzzzzzzzzzzzzzzz' }),
      'inbox_not_found',
    );
    // Nothing of the refused patches was saved.
    expect(expectToolOk(await call('get_triage_profile', { inboxId }))).toEqual(withInbox);
    expectToolOk(await call('update_triage_profile', { patch: { inboxes: {} } }));
  });

  it('update_triage_profile publishes the profile’s fields in tools/list, each optional at every depth', async () => {
    const client = await connectClient(app, 'v2-modern', key);
    const tool = (await client.listTools()).tools.find((t) => t.name === 'update_triage_profile');
    await client.close();
    const patch = (tool?.inputSchema as { properties: { patch: unknown } }).properties.patch;
    const time = { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' };
    const prefs = {
      type: 'object',
      additionalProperties: false,
      properties: {
        cadence: { properties: { everyHours: { anyOf: [{ type: 'number' }, { type: 'null' }] } } },
        quietHours: {
          anyOf: [{ properties: { start: time, end: time, timezone: { type: 'string' } } }, { type: 'null' }],
        },
        junk: {
          properties: {
            screenUnknownSenders: { type: 'boolean' },
            blockedDomains: { type: 'array' },
            knownGoodSenders: { type: 'array' },
            notes: { type: 'string' },
          },
        },
        vip: { properties: { people: { type: 'array' } } },
        sending: { properties: { requireInAppConfirmation: { type: 'boolean' } } },
      },
    };
    expect(patch).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: {
        defaults: prefs,
        inboxes: { propertyNames: { pattern: '^inbox_[a-z0-9]{20}$' }, additionalProperties: prefs },
      },
    });
    // Nothing is required at any depth: a patch names only what changes.
    expect(JSON.stringify(patch)).not.toContain('"required"');
  });

  it('archive_messages on a google inbox: confirmed: true required, VIP skipped, undoable', async () => {
    const three = (await messagesIn('inbox')).slice(0, 3);
    const ids = three.map((m) => m.messageId);
    expectToolError(await call('archive_messages', { inboxId, messageIds: ids }), 'confirmation_required');
    expectToolError(
      await call('archive_messages', { inboxId, messageIds: ids, confirmed: false }),
      'confirmation_required',
    );
    const done = expectToolOk(await call('archive_messages', { inboxId, messageIds: ids, confirmed: true }));
    expect((done['changed'] as unknown[]).length).toBe(3);
    const archived = (await messagesIn('archive')).map((m) => m.messageId);
    expect(archived).toEqual(expect.arrayContaining(ids));
    expectToolOk(await call('undo_action', { undoId: done['undoId'] }));
    const inbox = (await messagesIn('inbox')).map((m) => m.messageId);
    expect(inbox).toEqual(expect.arrayContaining(ids));
  });

  it('drafts and sending on the demo inbox: nothing leaves, a sent copy lands in its Sent folder', async () => {
    const draftsBefore = (await messagesIn('drafts')).length;
    const plain = expectToolOk(
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

    expectToolError(await call('set_send_enabled', { enabled: true }), 'confirmation_required');
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    const [parent] = await messagesIn('inbox');
    const threadId =
      ((await call('get_message', { inboxId, messageId: parent!.messageId })).body['threadId'] as
        string | null) ?? undefined;
    const reply = expectToolOk(
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
    const shown = expectToolOk(await call('show_draft', { inboxId, draftId: draft.id }));
    expect(shown['text']).toBe('To: friend@example.test\nSubject: Re: plans\n\nSounds good.');
    expectToolError(
      await call('show_draft', { inboxId, draftId: 'draft_zzzzzzzzzzzzzzzzzzzz' }),
      'invalid_arguments',
    );

    // The person's profile can demand confirmation in the app for every send; only they can take it back.
    expectToolOk(
      await call('update_triage_profile', {
        patch: { defaults: { sending: { requireInAppConfirmation: true } } },
      }),
    );
    const args = {
      pendingSendId: reply['pendingSendId'],
      approvalCode: reply['approvalCode'],
      humanApprovedInChat: true,
    };
    expectToolError(await call('send_draft', args), 'human_approval_required');
    await web.get('/settings/preferences');
    await web.post('/settings/preferences/confirm-in-app', { required: 'off' });

    const sentBefore = (await messagesIn('sent')).length;
    const sent = expectToolOk(
      await call('send_draft', { ...args, confirmTo: 'Friend@Example.test', confirmSubject: 'Re: plans' }),
    );
    expect(sent).toMatchObject({ sent: true, draft: { id: draft.id, isDemo: true } });
    const sentNow = await messagesIn('sent');
    expect(sentNow.length).toBe(sentBefore + 1);
    expect(sentNow.some((m) => m.subject === 'Re: plans')).toBe(true);
    expect((await messagesIn('drafts')).length).toBe(draftsBefore + 1);
    expect(expectToolOk(await call('show_draft', { inboxId, draftId: draft.id }))).toMatchObject({
      draft: { status: 'sent' },
    });
    expectToolError(await call('send_draft', args), 'approval_used');
    expectToolOk(await call('set_send_enabled', { enabled: false, humanConfirmedInChat: true }));
  });
});
