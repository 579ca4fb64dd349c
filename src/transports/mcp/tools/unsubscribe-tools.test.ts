import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../app.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import type { WebClient } from '../../../../test/support/web-client.ts';
import {
  agentOn,
  expectToolError,
  expectToolOk,
  type toolCaller,
} from '../../../../test/support/tool-caller.ts';

// Unsubscribing on the demo inbox through /mcp: its list mail is DKIM-signed with the demo's key, and its requests
// are recorded, never sent (the Dovecot test in test/imap/unsubscribe.test.ts makes real requests).
describe('unsubscribe tools on the demo inbox', () => {
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;
  let web: WebClient;
  type Row = {
    inboxId: string;
    messageId: string;
    sender: { address: string };
    oneClickAdvertised: boolean;
    unsubscribed: { result: string } | null;
  };
  const rows = async () =>
    expectToolOk(await call('review_unsubscribes', { inbox: inboxId, limit: 100 }))['senders'] as Row[];

  beforeAll(async () => {
    app = await createTestApp({ config: { syncWindow: 200 } });
    ({ call, web } = await agentOn(app));
    const list = expectToolOk(await call('list_inboxes'))['inboxes'] as {
      id: string;
      label: string;
      isDemo: boolean;
    }[];
    inboxId = list.find((i) => i.isDemo)!.id;
    expectToolOk(await call('sync_inbox', { inboxId }));
  });
  afterAll(async () => {
    await app.close();
  });

  it('lists the demo’s list senders, by id or by inbox name, each once', async () => {
    const byId = await rows();
    expect(byId.length).toBeGreaterThan(3);
    expect(new Set(byId.map((r) => `${r.inboxId} ${r.messageId}`)).size).toBe(byId.length);
    const label = (
      expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string; label: string }[]
    ).find((i) => i.id === inboxId)!.label;
    const byName = expectToolOk(
      await call('review_unsubscribes', { inbox: label.toUpperCase(), limit: 100 }),
    );
    expect((byName['senders'] as Row[]).map((r) => r.messageId)).toEqual(byId.map((r) => r.messageId));
    expectToolError(await call('review_unsubscribes', { inbox: 'no such inbox' }), 'inbox_not_found');
  });

  it('a VIP sender needs the person’s agreement before it is even proposed', async () => {
    const row = (await rows()).find((r) => r.oneClickAdvertised)!;
    expectToolOk(await call('add_vip', { emails: [row.sender.address] }));
    expectToolError(
      await call('propose_unsubscribe', { inboxId, messageId: row.messageId }),
      'vip_confirmation_required',
    );
    expectToolOk(await call('propose_unsubscribe', { inboxId, messageId: row.messageId, confirmed: true }));
    expectToolOk(await call('remove_vip', { emails: [row.sender.address], confirmed: true }));
  });

  it('without the flag nothing happens; with it the request is recorded, not sent, and shows on the row', async () => {
    const row = (await rows()).find((r) => r.oneClickAdvertised && r.unsubscribed === null)!;
    const p = expectToolOk(await call('propose_unsubscribe', { inboxId, messageId: row.messageId }));
    expect(p).toMatchObject({ isDemo: true });
    const args = { pendingUnsubscribeId: p['pendingUnsubscribeId'], approvalCode: p['approvalCode'] };
    expectToolError(await call('confirm_unsubscribe', args), 'human_approval_required');
    expect((await rows()).find((r) => r.messageId === row.messageId)?.unsubscribed).toBeNull();
    const done = expectToolOk(await call('confirm_unsubscribe', { ...args, humanApprovedInChat: true }));
    expect(done).toMatchObject({ unsubscribed: true, result: 'done', isDemo: true, httpStatus: null });
    expectToolError(
      await call('confirm_unsubscribe', { ...args, humanApprovedInChat: true }),
      'approval_used',
    );
    expect((await rows()).find((r) => r.messageId === row.messageId)?.unsubscribed).toMatchObject({
      result: 'done',
    });
  });

  // Decision 0128: each proposal was a new approval, so an agent that asked again (a retry, a later session) left the
  // person several requests for one sender to wade through, older ones still approvable.
  it('asked again for a sender, the newer approval replaces the one waiting; the older code is expired', async () => {
    const row = (await rows()).find((r) => r.oneClickAdvertised && r.unsubscribed === null)!;
    const propose = async () =>
      expectToolOk(await call('propose_unsubscribe', { inboxId, messageId: row.messageId }));
    const older = await propose();
    const newer = await propose();
    const waiting = await (await web.get('/waiting')).text();
    expect(waiting).not.toContain(String(older['pendingUnsubscribeId']));
    expect(waiting).toContain(String(newer['pendingUnsubscribeId']));
    const confirm = (p: Record<string, unknown>) =>
      call('confirm_unsubscribe', {
        pendingUnsubscribeId: p['pendingUnsubscribeId'],
        approvalCode: p['approvalCode'],
        humanApprovedInChat: true,
      });
    expectToolError(await confirm(older), 'approval_expired');
    expect(expectToolOk(await confirm(newer))).toMatchObject({ unsubscribed: true, result: 'done' });
  });

  it('a request cut short by a process that died is reported unknown ten minutes on, never made again', async () => {
    const row = (await rows()).find((r) => r.oneClickAdvertised && r.unsubscribed === null)!;
    const p = expectToolOk(await call('propose_unsubscribe', { inboxId, messageId: row.messageId }));
    const id = p['pendingUnsubscribeId'] as string;
    // Claimed eleven minutes ago by a process that died before the request finished.
    expect(await app.stores.pendingUnsubscribes.claim(id, new Date(Date.now() - 11 * 60_000))).toBe(true);
    expect((await rows()).find((r) => r.messageId === row.messageId)?.unsubscribed).toBeNull();

    expect(await app.services.tools.unsubscribe.recoverStranded()).toBe(1);
    expect((await rows()).find((r) => r.messageId === row.messageId)?.unsubscribed).toMatchObject({
      result: 'unknown',
    });
    expectToolError(
      await call('confirm_unsubscribe', {
        pendingUnsubscribeId: id,
        approvalCode: p['approvalCode'],
        humanApprovedInChat: true,
      }),
      'approval_used',
    );
    expect(await app.services.tools.unsubscribe.recoverStranded()).toBe(0);
  });

  it('a person who requires in-app confirmation cannot be unsubscribed by chat approval', async () => {
    const row = (await rows()).find((r) => r.oneClickAdvertised && r.unsubscribed === null)!;
    expectToolOk(
      await call('update_triage_profile', {
        patch: { defaults: { sending: { requireInAppConfirmation: true } } },
      }),
    );
    const p = expectToolOk(await call('propose_unsubscribe', { inboxId, messageId: row.messageId }));
    expectToolError(
      await call('confirm_unsubscribe', {
        pendingUnsubscribeId: p['pendingUnsubscribeId'],
        approvalCode: p['approvalCode'],
        humanApprovedInChat: true,
      }),
      'human_approval_required',
    );
    expectToolError(
      await call('update_triage_profile', {
        patch: { defaults: { sending: { requireInAppConfirmation: false } } },
      }),
      'human_approval_required',
    );
    await web.get('/settings/preferences');
    await web.post('/settings/preferences/confirm-in-app', { required: 'off' });
    expectToolOk(
      await call('confirm_unsubscribe', {
        pendingUnsubscribeId: p['pendingUnsubscribeId'],
        approvalCode: p['approvalCode'],
        humanApprovedInChat: true,
      }),
    );
  });

  it('senders without a signed one-click link get the reason and a fallback, no pending request', async () => {
    const candidates = (await rows()).filter((r) => !r.oneClickAdvertised);
    expect(candidates.length).toBeGreaterThan(0);
    for (const r of candidates) {
      const e = expectToolError(
        await call('propose_unsubscribe', { inboxId, messageId: r.messageId }),
        'unsubscribe_unavailable',
      );
      expect(['mailto_only', 'no_one_click_post', 'not_https', 'no_list_unsubscribe']).toContain(
        (e['details'] as { reason: string }).reason,
      );
    }
  });
});
