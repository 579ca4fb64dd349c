import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { holdInstanceLock } from '../../src/adapters/storage/sqlite/instance-lock.ts';
import { sqlitePath } from '../../src/config/load-config.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { oauthAccessToken } from '../support/oauth-code.ts';
import { runCommand } from '../support/spawn-service.ts';
import { createTestApp, TEST_KEY } from '../support/test-app.ts';
import { tempDir } from '../support/temp-dir.ts';
import {
  agentOn,
  expectToolOk,
  firstAttachmentLink,
  toolCaller,
  toolsListStatus,
} from '../support/tool-caller.ts';
import { KyselyCredentialVault } from '../../src/adapters/storage/kysely-credential-vault.ts';
import type { InboxId } from '../../src/core/inboxes/inbox.ts';
import { aead } from '../../src/lib/aead.ts';
import { WebClient } from '../support/web-client.ts';

// Decision 0140: a service started with `npm start` on SQLite moves to PostgreSQL, to run several instances, with
// everything it keeps — the person's sign-in, their agents' keys and sign-ins, the inbox and its index, an undo
// handle, the activity — working the same on the other side.
describe('inbox-triage copy-from-sqlite', () => {
  it('moves everything to an empty PostgreSQL database, once, with the same key, never beside a running service', async () => {
    const dataDir = tempDir('copy-from-');
    const config = { dataDir, database: { kind: 'sqlite' as const, path: sqlitePath(dataDir) } };
    const before = await createTestApp({ config });
    const { web, key, call } = await agentOn(before);
    const token = await oauthAccessToken(before, web, 'Desk agent');
    const inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await call('sync_inbox', { inboxId }));
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 200 }))['messages'] as {
      messageId: string;
      subject: string;
    }[];
    const archived = expectToolOk(
      await call('act_on_messages', {
        action: 'archive',
        items: [{ inboxId, messageId: listed[0]!.messageId }],
      }),
    );
    // Something in most tables: a pass and its lease, a VIP, a draft waiting to be sent, a proposed unsubscribe, a
    // screening verdict, a download link, an invitation, and a password sealed under the key for an IMAP inbox.
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
    await before.services.accounts.issueInvitation('friend@example.test');
    const imap = expectToolOk(
      await call('add_inbox', {
        label: 'Work',
        provider: 'imap',
        email: 'me@work.test',
        imapHost: 'imap.work.test',
      }),
    )['inbox'] as { id: InboxId };
    const password = { kind: 'password', username: 'me@work.test', password: 'hunter2-but-longer' } as const;
    await new KyselyCredentialVault(before.db, aead(TEST_KEY, 'credential')).put(
      imap.id,
      password,
      new Date(),
    );
    const subjects = async (c: typeof call) =>
      (expectToolOk(await c('list_messages', { inboxId, limit: 200 }))['messages'] as { subject: string }[])
        .map((m) => m.subject)
        .sort();
    const shown = await subjects(call);
    await before.close();

    const pgUrl = await freshPgDatabase();
    const env = { DATA_DIR: dataDir, DATABASE_URL: pgUrl, ENCRYPTION_KEY: TEST_KEY.toString('base64') };
    // Not beside the service: it would go on writing to what is being copied.
    const running = holdInstanceLock(sqlitePath(dataDir));
    const refused = await runCommand(env, 'copy-from-sqlite');
    running.release();
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.err).toContain('the service is running on');
    // Not with another key: the instances on PostgreSQL could not open the inbox's sign-in.
    const otherKey = await runCommand(
      { ...env, ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') },
      'copy-from-sqlite',
    );
    expect(otherKey.code).toBe(2);
    expect(otherKey.err).toContain('is not the key the SQLite database was set up with');

    const copied = await runCommand(env, 'copy-from-sqlite');
    expect(copied.err).toBe('');
    expect(copied.code).toBe(0);
    expect(copied.out).toMatch(/^Copied \d+ rows of \d+ tables from .*inbox-triage\.db into PostgreSQL\./);
    expect(copied.out).not.toContain(pgUrl);

    const after = await createTestApp({ pgUrl, config: { dataDir } });
    try {
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
      // New rows got new ids: the serial ids' sequences start past the copied ones.
      const ids = await sql<{ n: string; distinct: string }>`
        SELECT count(*) AS n, count(DISTINCT id) AS distinct FROM audit_log`.execute(after.db.kysely);
      expect(ids.rows[0]!.n).toBe(ids.rows[0]!.distinct);
    } finally {
      await after.close();
    }

    const twice = await runCommand(env, 'copy-from-sqlite');
    expect(twice.code).toBe(1);
    expect(twice.err).toContain('the PostgreSQL database already holds data');
  }, 90_000);

  it('says what to set when DATABASE_URL is not set, or there is no SQLite database', async () => {
    const none = await runCommand({ DATA_DIR: tempDir('copy-none-') }, 'copy-from-sqlite');
    expect(none.code).toBe(2);
    expect(none.err).toContain('set DATABASE_URL to the PostgreSQL database to copy into');
    const empty = tempDir('copy-empty-');
    const missing = await runCommand(
      { DATA_DIR: empty, DATABASE_URL: 'postgres://app:secret@127.0.0.1:1/x' },
      'copy-from-sqlite',
    );
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(`no SQLite database at ${sqlitePath(empty)}`);
    expect(missing.err).not.toContain('secret');
  });
});
