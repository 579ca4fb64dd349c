import { sql } from 'kysely';
import { expect } from 'vitest';
import type { App } from '../../src/app.ts';
import { KyselyCredentialVault } from '../../src/adapters/storage/kysely-credential-vault.ts';
import type { InboxId } from '../../src/core/inboxes/inbox.ts';
import { aead } from '../../src/lib/aead.ts';
import { oauthAccessToken } from './oauth-code.ts';
import { TEST_KEY } from './test-app.ts';
import { agentOn, expectToolOk, firstAttachmentLink, toolCaller, toolsListStatus } from './tool-caller.ts';
import { WebClient } from './web-client.ts';

type Call = ReturnType<typeof toolCaller>;

/**
 * A service with something in most tables, for the tests of a copy to another database (decisions 0140, 0152): the
 * person signed in, an agent's key and an OAuth sign-in, the demo inbox synced with a message archived (its undo
 * handle), a pass and its lease, a VIP, a draft waiting to be sent, a proposed unsubscribe, a screening verdict, a
 * download link, an invitation, and a password sealed under TEST_KEY for an IMAP inbox. `worksOn` checks that all
 * of it works on another service — the copy's.
 */
export async function somethingInEveryTable(app: App) {
  const { web, key, call } = await agentOn(app);
  const token = await oauthAccessToken(app, web, 'Desk agent');
  const inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
  expectToolOk(await call('sync_inbox', { inboxId }));
  const listed = expectToolOk(await call('list_messages', { inboxId, limit: 200 }))['messages'] as {
    messageId: string;
  }[];
  const archived = expectToolOk(
    await call('act_on_messages', {
      action: 'archive',
      items: [{ inboxId, messageId: listed[0]!.messageId }],
    }),
  );
  expectToolOk(await call('begin_triage', { inboxId, agentLabel: 'mover' }));
  expectToolOk(await call('end_triage', { inboxId, agentLabel: 'mover', summary: 'Archived one.' }));
  expectToolOk(await call('add_vip', { emails: ['boss@example.test'] }));
  expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
  const draft = expectToolOk(
    await call('create_draft', { inboxId, to: 'sam@example.test', subject: 'Friday', text: 'See you.' }),
  );
  const lists = expectToolOk(await call('review_unsubscribes', { inbox: inboxId, limit: 100 }))[
    'senders'
  ] as {
    messageId: string;
    oneClickAdvertised: boolean;
  }[];
  expectToolOk(
    await call('propose_unsubscribe', {
      inboxId,
      messageId: lists.find((r) => r.oneClickAdvertised)!.messageId,
    }),
  );
  const offered = expectToolOk(await call('screen_junk', { inbox: inboxId }))['messages'] as {
    inboxId: string;
    messageId: string;
  }[];
  expectToolOk(
    await call('confirm_screening', {
      verdicts: [{ inboxId: offered[0]!.inboxId, messageId: offered[0]!.messageId, verdict: 'fine' }],
    }),
  );
  const link = await firstAttachmentLink(call, inboxId);
  await app.services.accounts.issueInvitation('friend@example.test');
  const imap = expectToolOk(
    await call('add_inbox', {
      label: 'Work',
      provider: 'imap',
      email: 'me@work.test',
      imapHost: 'imap.work.test',
    }),
  )['inbox'] as { id: InboxId };
  const password = { kind: 'password', username: 'me@work.test', password: 'hunter2-but-longer' } as const;
  await new KyselyCredentialVault(app.db, aead(TEST_KEY, 'credential')).put(imap.id, password, new Date());
  /** The inbox's subjects as an agent lists them, sorted. */
  const subjects = async (c: Call) =>
    (expectToolOk(await c('list_messages', { inboxId, limit: 200 }))['messages'] as { subject: string }[])
      .map((m) => m.subject)
      .sort();
  const shown = await subjects(call);
  /** On a service started on the copy: the same key, inbox and messages; the sign-ins, the approval, the link. */
  const worksOn = async (after: App) => {
    const again = toolCaller(after, key);
    expect((expectToolOk(await again('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id).toBe(inboxId);
    expect(await subjects(again)).toEqual(shown);
    // The sealed password opens under the same key there; the draft's approval and the download link still work.
    expect(await new KyselyCredentialVault(after.db, aead(TEST_KEY, 'credential')).get(imap.id)).toEqual(
      password,
    );
    expectToolOk(
      await again('send_draft', {
        pendingSendId: draft['pendingSendId'],
        approvalCode: draft['approvalCode'],
        humanApprovedInChat: true,
      }),
    );
    expect((await after.fetch(new Request(link))).status).toBe(200);
    expectToolOk(await again('undo_action', { undoId: archived['undoId'] }));
    expect(await toolsListStatus(after.fetch, after.config.baseUrl, token)).toBe(200);
    const browser = new WebClient(after);
    for (const [k, v] of web.cookies) browser.cookies.set(k, v);
    expect((await browser.get('/settings/activity')).status).toBe(200);
    const owner = (await after.stores.accounts.findByEmail('owner@example.test'))!;
    const tools = (await after.stores.audit.recent(owner.id, 500)).map((a) => a.tool);
    expect(tools).toEqual(expect.arrayContaining(['sync_inbox', 'act_on_messages', 'undo_action']));
    // New rows got new ids, past the copied ones.
    const ids = await sql<{ n: number | string; ids: number | string }>`
      SELECT count(*) AS n, count(DISTINCT id) AS ids FROM audit_log`.execute(after.db.kysely);
    expect(Number(ids.rows[0]!.n)).toBe(Number(ids.rows[0]!.ids));
  };
  return { key, worksOn };
}
