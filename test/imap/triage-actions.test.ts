import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { buildMessage, seedMaildir, startDovecot, type Dovecot } from '../rig/index.ts';
import { connectImapInbox, imapClient, mailboxState } from '../support/imap-inbox.ts';
import { createTestApp } from '../support/test-app.ts';
import {
  agentOn,
  expectToolError,
  expectToolOk,
  toolCaller,
  type ToolResult,
} from '../support/tool-caller.ts';
import { createKeyViaPage } from '../support/web-client.ts';

// Issue 7 against a real IMAP server: every mail-changing tool, the mailbox state after it (read with a direct IMAP
// client, not through our index), and after its undo — which must equal the state before.
describe('changing mail on IMAP, and undoing it', () => {
  let dovecot: Dovecot;
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let other: ReturnType<typeof toolCaller>;
  let inboxId: string;
  const clock = fixedClock(new Date());
  const USER = 'bob';
  const PASSWORD = 'bob-imap-password';
  const VIP = 'boss@corp.test';
  const NEWS = 'news@shop.test';

  beforeAll(async () => {
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    const start = Date.UTC(2026, 9, 1);
    const senders = [
      ...Array.from({ length: 6 }, () => VIP),
      ...Array.from({ length: 8 }, () => NEWS),
      ...Array.from({ length: 16 }, (_, i) => `person${String(i)}@example.org`),
    ];
    await seedMaildir({
      maildir: dovecot.maildirOf(USER),
      messages: senders.map((from, i) => ({
        raw: buildMessage({
          from: { address: from, name: from.split('@')[0] ?? '' },
          to: [{ address: `${USER}@example.test` }],
          subject: `Message ${String(i)} from ${from}`,
          date: new Date(start + i * 3_600_000),
          messageId: `<m${String(i)}@rig.test>`,
          text: `Body ${String(i)}`,
        }),
        flags: i % 3 === 0 ? ['\\Seen', 'existing'] : [],
        internalDate: new Date(start + i * 3_600_000),
      })),
    });
    app = await createTestApp({ overrides: { clock } });
    const agent = await agentOn(app);
    call = agent.call;
    other = toolCaller(app, await createKeyViaPage(agent.web));
    inboxId = await connectImapInbox(app, call, { dovecot, user: USER, password: PASSWORD });
    expect((await call('add_vip', { emails: [VIP] })).isError).toBe(false);
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await dovecot.stop();
  });

  async function inboxMessages(from?: string) {
    const r = await call('list_messages', { inboxId, folder: 'inbox', limit: 200 });
    const list = r.body['messages'] as {
      messageId: string;
      from: { address: string };
      labels: string[];
      starred: boolean;
    }[];
    return from === undefined ? list : list.filter((m) => m.from.address === from);
  }

  const state = () => mailboxState(dovecot, USER, PASSWORD);

  /** Runs a change, checks what it did to the mailbox, undoes it, and checks the mailbox is as it was. */
  async function changeAndUndo(
    change: () => Promise<ToolResult>,
    expectDiff: (removed: string[], added: string[]) => void,
  ) {
    const before = await state();
    const result = expectToolOk(await change());
    const after = await state();
    expectDiff(
      before.filter((r) => !after.includes(r)),
      after.filter((r) => !before.includes(r)),
    );
    expect(result['undoId']).toMatch(/^undo_[a-z0-9]{20}$/);
    const undone = expectToolOk(await call('undo_action', { undoId: result['undoId'] }));
    expect(undone['notRestored']).toEqual([]);
    expect(await state()).toEqual(before);
    expectToolError(await call('undo_action', { undoId: result['undoId'] }), 'undo_unavailable');
    return result;
  }

  const rowsIn = (rows: string[], folder: string) => rows.filter((r) => r.startsWith(`${folder} |`));

  it('trash_message moves one message to Trash (never deletes it); undo puts it back', async () => {
    const [m] = await inboxMessages('person2@example.org');
    await changeAndUndo(
      () => call('trash_message', { inboxId, messageId: m!.messageId }),
      (removed, added) => {
        expect(removed).toEqual(['INBOX | <m16@rig.test> | ']);
        expect(added).toEqual(['Trash | <m16@rig.test> | ']);
      },
    );
  });

  it('mark_as_spam moves to Junk; undo puts it back with its flags', async () => {
    const [m] = await inboxMessages('person4@example.org');
    await changeAndUndo(
      () => call('mark_as_spam', { inboxId, messageId: m!.messageId }),
      (removed, added) => {
        expect(removed).toEqual(['INBOX | <m18@rig.test> | \\Seen existing']);
        expect(added).toEqual(['Junk | <m18@rig.test> | \\Seen existing']);
      },
    );
  });

  it('a VIP message needs confirmed: true, asked for one message at a time', async () => {
    const [m] = await inboxMessages(VIP);
    const before = await state();
    const refused = expectToolError(
      await call('trash_message', { inboxId, messageId: m!.messageId }),
      'vip_confirmation_required',
    );
    expect(refused['sayToHuman']).toMatch(/VIP/);
    expectToolError(
      await call('mark_as_spam', { inboxId, messageId: m!.messageId, confirmed: false }),
      'vip_confirmation_required',
    );
    expect(await state()).toEqual(before);
    await changeAndUndo(
      () => call('trash_message', { inboxId, messageId: m!.messageId, confirmed: true }),
      (removed, added) => {
        expect(removed).toHaveLength(1);
        expect(added).toHaveLength(1);
        expect(added[0]).toMatch(/^Trash \| <m\d@rig\.test>/);
      },
    );
  });

  it('act_on_messages archives items in bulk, skipping VIP mail and reporting it', async () => {
    const people = (await inboxMessages()).filter((m) => m.from.address.startsWith('person')).slice(0, 3);
    const [vip] = await inboxMessages(VIP);
    const items = [...people, vip!].map((m) => ({ inboxId, messageId: m.messageId }));
    const result = await changeAndUndo(
      () => call('act_on_messages', { action: 'archive', items }),
      (removed, added) => {
        expect(removed).toHaveLength(3);
        expect(rowsIn(added, 'Archive')).toHaveLength(3);
        expect(added.join('\n')).not.toMatch(/<m[0-5]@rig\.test>/);
      },
    );
    expect(result['skipped']).toEqual([{ inboxId, messageId: vip!.messageId, reason: 'vip', from: VIP }]);
    expect(result['sayToHuman']).toMatch(/1 message from VIPs was left alone/);
  });

  it('act_on_messages { sender } trashes every message from that sender still in the inbox', async () => {
    await changeAndUndo(
      () => call('act_on_messages', { action: 'trash', sender: { inboxId, email: NEWS } }),
      (removed, added) => {
        expect(removed).toHaveLength(8);
        expect(rowsIn(added, 'Trash')).toHaveLength(8);
      },
    );
  });

  it('a bulk move of a VIP sender changes nothing and has no undo handle', async () => {
    const before = await state();
    const r = expectToolOk(
      await call('act_on_messages', { action: 'spam', sender: { inboxId, email: VIP } }),
    );
    expect(r['changed']).toEqual([]);
    expect(r['undoId']).toBeNull();
    expect((r['skipped'] as unknown[]).length).toBe(6);
    expect(await state()).toEqual(before);
    expectToolError(
      await call('act_on_messages', {
        action: 'trash',
        items: [
          { inboxId, messageId: (await inboxMessages(VIP))[0]!.messageId },
          { inboxId, messageId: (await inboxMessages(VIP))[1]!.messageId },
        ],
        vipConfirmed: true,
      }),
      'invalid_arguments',
    );
  });

  it('star, unstar and label through act_on_messages; undo reverses only what the action did', async () => {
    const [a] = await inboxMessages('person0@example.org');
    const [b] = await inboxMessages('person1@example.org');
    const items = [a!, b!].map((m) => ({ inboxId, messageId: m.messageId }));
    await changeAndUndo(
      () => call('act_on_messages', { action: 'star', items }),
      (removed, added) => {
        expect(removed).toHaveLength(2);
        expect(added.every((r) => r.includes('\\Flagged'))).toBe(true);
      },
    );
    // m15 (person1) already carries the keyword "existing": labelling with it again must not remove it on undo.
    await changeAndUndo(
      () => call('act_on_messages', { action: 'label', items, labelIds: ['Project-X', 'existing'] }),
      (removed, added) => {
        expect(removed).toHaveLength(2);
        expect(added.every((r) => r.includes('Project-X') && r.includes('existing'))).toBe(true);
      },
    );
  });

  it('undo keeps what the person changed since: only the star it added goes', async () => {
    const [m] = await inboxMessages('person8@example.org');
    const before = await state();
    const r = expectToolOk(
      await call('act_on_messages', { action: 'star', items: [{ inboxId, messageId: m!.messageId }] }),
    );
    // The person adds a keyword in their own mail app meanwhile.
    const imap = await imapClient(dovecot, USER, PASSWORD);
    const lock = await imap.getMailboxLock('INBOX');
    try {
      await imap.messageFlagsAdd({ header: { 'message-id': '<m22@rig.test>' } }, ['PersonalNote']);
    } finally {
      lock.release();
    }
    expectToolOk(await call('undo_action', { undoId: r['undoId'] }));
    const after = await state();
    expect(after).toEqual(
      before.map((row) =>
        row.startsWith('INBOX | <m22@rig.test> |') ? 'INBOX | <m22@rig.test> | PersonalNote' : row,
      ),
    );
    const cleanup = await imap.getMailboxLock('INBOX');
    try {
      await imap.messageFlagsRemove({ header: { 'message-id': '<m22@rig.test>' } }, ['PersonalNote']);
    } finally {
      cleanup.release();
      await imap.logout();
    }
  });

  it('apply_labels / remove_labels / star_messages: ≤ 25 ids, confirmed: true for more than one', async () => {
    const three = (await inboxMessages()).filter((m) => m.from.address.startsWith('person')).slice(3, 6);
    const ids = three.map((m) => m.messageId);
    const before = await state();
    expectToolError(
      await call('apply_labels', { inboxId, messageIds: ids, labelIds: ['Later'] }),
      'confirmation_required',
    );
    expectToolError(
      await call('star_messages', { inboxId, messageIds: ids, starred: true }),
      'confirmation_required',
    );
    expectToolError(
      await call('remove_labels', { inboxId, messageIds: ids, labelIds: ['existing'], confirmed: false }),
      'confirmation_required',
    );
    expect(await state()).toEqual(before);
    await changeAndUndo(
      () => call('apply_labels', { inboxId, messageIds: ids, labelIds: ['Later'], confirmed: true }),
      (removed, added) => {
        expect(removed).toHaveLength(3);
        expect(added.every((r) => r.includes('Later'))).toBe(true);
      },
    );
    await changeAndUndo(
      () => call('star_messages', { inboxId, messageIds: ids, starred: true, confirmed: true }),
      (_removed, added) => {
        expect(added).toHaveLength(3);
      },
    );
    const labelled = (await inboxMessages()).filter((m) => m.labels.includes('existing')).slice(0, 2);
    await changeAndUndo(
      () =>
        call('remove_labels', {
          inboxId,
          messageIds: labelled.map((m) => m.messageId),
          labelIds: ['existing'],
          confirmed: true,
        }),
      (removed, added) => {
        expect(removed).toHaveLength(2);
        expect(added.every((r) => !r.includes('existing'))).toBe(true);
      },
    );
    // One message needs no confirmation.
    await changeAndUndo(
      () => call('star_messages', { inboxId, messageIds: [ids[0]], starred: true }),
      (_removed, added) => {
        expect(added).toHaveLength(1);
      },
    );
  });

  it('archive_messages is for google inboxes; on IMAP it points to act_on_messages', async () => {
    const [m] = await inboxMessages('person9@example.org');
    const before = await state();
    const r = expectToolError(
      await call('archive_messages', { inboxId, messageIds: [m!.messageId], confirmed: true }),
      'not_supported',
    );
    expect(r['message']).toContain('act_on_messages');
    expectToolError(
      await call('archive_messages', { inboxId, messageIds: [m!.messageId] }),
      'confirmation_required',
    );
    expect(await state()).toEqual(before);
  });

  it('bad input gets a documented code and changes nothing', async () => {
    const [m] = await inboxMessages('person10@example.org');
    const many = (await inboxMessages()).slice(0, 26).map((x) => x.messageId);
    const demo = ((await call('list_inboxes')).body['inboxes'] as { id: string; isDemo: boolean }[]).find(
      (i) => i.isDemo,
    )!;
    expectToolOk(await call('sync_inbox', { inboxId: demo.id }));
    const demoMessage = (
      (await call('list_messages', { inboxId: demo.id, limit: 1 })).body['messages'] as {
        messageId: string;
      }[]
    )[0]!;
    const before = await state();
    const cases: [string, Record<string, unknown>, string][] = [
      ['trash_message', { inboxId, messageId: 'msg_aaaaaaaaaaaaaaaaaaaa' }, 'message_not_found'],
      ['trash_message', { inboxId, messageId: 'not-an-id' }, 'message_not_found'],
      ['trash_message', { inboxId, messageId: demoMessage.messageId }, 'message_not_found'],
      [
        'trash_message',
        { inboxId: 'inbox_aaaaaaaaaaaaaaaaaaaa', messageId: m!.messageId },
        'inbox_not_found',
      ],
      ['trash_message', { inboxId, messageId: m!.messageId, extra: 1 }, 'invalid_arguments'],
      ['mark_as_spam', { inboxId, messageId: 'x'.repeat(100_000) }, 'message_not_found'],
      ['apply_labels', { inboxId, messageIds: many, labelIds: ['L'], confirmed: true }, 'invalid_arguments'],
      ['apply_labels', { inboxId, messageIds: [], labelIds: ['L'] }, 'invalid_arguments'],
      ['apply_labels', { inboxId, messageIds: [m!.messageId], labelIds: [] }, 'invalid_arguments'],
      ['apply_labels', { inboxId, messageIds: [m!.messageId], labelIds: ['two words'] }, 'invalid_arguments'],
      [
        'apply_labels',
        { inboxId, messageIds: [m!.messageId], labelIds: ['x\r\nA1 LOGOUT'] },
        'invalid_arguments',
      ],
      ['apply_labels', { inboxId, messageIds: [m!.messageId], labelIds: ['\\Deleted'] }, 'invalid_arguments'],
      [
        'apply_labels',
        { inboxId, messageIds: [m!.messageId], labelIds: ['L'.repeat(10_000)] },
        'invalid_arguments',
      ],
      ['star_messages', { inboxId, messageIds: many, starred: true, confirmed: true }, 'invalid_arguments'],
      ['archive_messages', { inboxId, messageIds: many, confirmed: true }, 'invalid_arguments'],
      ['act_on_messages', { action: 'trash', items: [] }, 'invalid_arguments'],
      [
        'act_on_messages',
        { action: 'delete', items: [{ inboxId, messageId: m!.messageId }] },
        'invalid_arguments',
      ],
      ['act_on_messages', { action: 'trash' }, 'invalid_arguments'],
      [
        'act_on_messages',
        { action: 'trash', items: [{ inboxId, messageId: m!.messageId }], sender: { inboxId, email: NEWS } },
        'invalid_arguments',
      ],
      [
        'act_on_messages',
        { action: 'label', items: [{ inboxId, messageId: m!.messageId }] },
        'invalid_arguments',
      ],
      [
        'act_on_messages',
        { action: 'star', items: [{ inboxId, messageId: m!.messageId }], labelIds: ['L'] },
        'invalid_arguments',
      ],
      ['undo_action', { undoId: 'undo_aaaaaaaaaaaaaaaaaaaa' }, 'undo_unavailable'],
      ['undo_action', { undoId: "'; DROP TABLE undo_records; --" }, 'undo_unavailable'],
    ];
    for (const [tool, args, code] of cases) expectToolError(await call(tool, args), code);
    // A batch with one unknown id still works for the rest and reports the unknown one.
    const mixed = expectToolOk(
      await call('act_on_messages', {
        action: 'star',
        items: [
          { inboxId, messageId: m!.messageId },
          { inboxId, messageId: 'msg_bbbbbbbbbbbbbbbbbbbb' },
        ],
      }),
    );
    expect(mixed['skipped']).toEqual([
      { inboxId, messageId: 'msg_bbbbbbbbbbbbbbbbbbbb', reason: 'not_found' },
    ]);
    expectToolOk(await call('undo_action', { undoId: mixed['undoId'] }));
    expect(await state()).toEqual(before);
  });

  it('leases: one holder at a time, others are refused lease_held; expiry frees the inbox', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? call : other)('begin_triage', {
          inboxId,
          agentLabel: i % 2 === 0 ? 'agent-a' : 'agent-b',
        }),
      ),
    );
    const started = results.filter((r) => !r.isError && r.body['started'] === true);
    const held = results.filter((r) => r.isError && r.body['error'] === 'lease_held');
    expect(started.length + held.length).toBe(10);
    const winner = (started[0]!.body['lease'] as { agentLabel: string }).agentLabel;
    expect(started.every((r) => (r.body['lease'] as { agentLabel: string }).agentLabel === winner)).toBe(
      true,
    );
    const [holder, loser, holderLabel, loserLabel] =
      winner === 'agent-a' ? [call, other, 'agent-a', 'agent-b'] : [other, call, 'agent-b', 'agent-a'];
    expect(started).toHaveLength(5);

    const activity = expectToolOk(await loser('get_triage_activity', { inboxId }));
    expect(activity['inboxes']).toMatchObject([{ inboxId, lease: { agentLabel: holderLabel } }]);
    const [m] = await inboxMessages('person11@example.org');
    const before = await state();
    const refused = expectToolError(
      await loser('trash_message', { inboxId, messageId: m!.messageId }),
      'lease_held',
    );
    expect(refused['details']).toMatchObject({ holder: holderLabel });
    expectToolError(
      await loser('act_on_messages', { action: 'star', items: [{ inboxId, messageId: m!.messageId }] }),
      'lease_held',
    );
    expectToolError(await loser('heartbeat_triage', { inboxId, agentLabel: loserLabel }), 'lease_held');
    expect(await state()).toEqual(before);

    // The holder changes mail, and the other agent cannot undo it while the lease lives.
    const own = expectToolOk(
      await holder('act_on_messages', { action: 'star', items: [{ inboxId, messageId: m!.messageId }] }),
    );
    expect(own['agentOnly']).not.toContainEqual(expect.stringContaining('begin_triage'));
    expectToolOk(await holder('heartbeat_triage', { inboxId, agentLabel: holderLabel }));

    // Five minutes without a heartbeat: the lease lapses and the other agent may take over.
    clock.advance(5 * 60_000 + 1);
    const taken = expectToolOk(await loser('begin_triage', { inboxId, agentLabel: loserLabel }));
    expect(taken).toMatchObject({ started: true, resumed: false });
    expectToolError(await holder('undo_action', { undoId: own['undoId'] }), 'lease_held');
    expectToolOk(
      await loser('end_triage', {
        inboxId,
        agentLabel: loserLabel,
        summary: 'Looked around, changed nothing.',
      }),
    );
    // The undo handle survived the refusal.
    expectToolOk(await holder('undo_action', { undoId: own['undoId'] }));
    expect(await state()).toEqual(before);

    const after = expectToolOk(await call('get_triage_activity', {}));
    const row = (
      after['inboxes'] as { inboxId: string; lease: unknown; lastPass: { summary: string } | null }[]
    ).find((x) => x.inboxId === inboxId)!;
    expect(row.lease).toBeNull();
    expect(row.lastPass?.summary).toBe('Looked around, changed nothing.');
    // Without a lease, single changes work and say to take the lease for a pass.
    const single = expectToolOk(
      await call('act_on_messages', { action: 'star', items: [{ inboxId, messageId: m!.messageId }] }),
    );
    expect(single['agentOnly']).toContainEqual(expect.stringContaining('begin_triage'));
    expectToolOk(await call('undo_action', { undoId: single['undoId'] }));
  });

  it('cadence and quiet hours: begin_triage answers started: false with the reason, force goes ahead', async () => {
    expectToolOk(
      await call('update_triage_profile', { patch: { defaults: { cadence: { everyHours: 4 } } } }),
    );
    const r = expectToolOk(await call('begin_triage', { inboxId, agentLabel: 'agent-a' }));
    expect(r).toMatchObject({ started: false, reason: 'too_soon' });
    expect(Date.parse(r['nextDueAt'] as string)).toBeGreaterThan(clock.now().getTime());
    expectToolOk(
      await call('update_triage_profile', {
        patch: {
          defaults: { cadence: { everyHours: null } },
          inboxes: { [inboxId]: { quietHours: quietNow(clock.now()) } },
        },
      }),
    );
    expect(expectToolOk(await call('begin_triage', { inboxId, agentLabel: 'agent-a' }))).toMatchObject({
      started: false,
      reason: 'quiet_hours',
    });
    expect(
      expectToolOk(await call('begin_triage', { inboxId, agentLabel: 'agent-a', force: true })),
    ).toMatchObject({
      started: true,
    });
    expectToolOk(await call('end_triage', { inboxId, agentLabel: 'agent-a' }));
    expectToolOk(
      await call('update_triage_profile', { patch: { inboxes: { [inboxId]: { quietHours: null } } } }),
    );
  });
});

/** Quiet hours from an hour ago to an hour ahead, in UTC. */
function quietNow(now: Date) {
  const hh = (d: Date) => `${String(d.getUTCHours()).padStart(2, '0')}:00`;
  return {
    start: hh(new Date(now.getTime() - 3_600_000)),
    end: hh(new Date(now.getTime() + 3_600_000)),
    timezone: 'UTC',
  };
}
