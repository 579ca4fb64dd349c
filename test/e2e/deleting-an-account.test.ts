import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { approvedCode, codeGrant } from '../support/oauth-code.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolOk, firstAttachmentLink } from '../support/tool-caller.ts';
import { invitedAccount, OWNER, WebClient } from '../support/web-client.ts';

// Decision 0117: an account used as a person uses one, deleted, and every row of every table searched for what it
// kept. Settings, keyed by a scope rather than a foreign key, outlived it (its triage profile, its send switch).
describe.each(['sqlite', 'postgres'] as const)('deleting an account on %s', (engine) => {
  let app: App;
  beforeAll(async () => {
    app = await createTestApp({
      config: { syncWindow: 60 },
      ...(engine === 'postgres' && { pgUrl: await freshPgDatabase() }),
    });
  }, 60_000);
  afterAll(async () => {
    await app.close();
  });

  /** Every row of every table of ours, as text. */
  async function everyRow(): Promise<string[]> {
    const db = app.db.kysely as unknown as Kysely<unknown>;
    const tables =
      engine === 'sqlite'
        ? await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`.execute(db)
        : await sql<{
            name: string;
          }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`.execute(
            db,
          );
    const rows: string[] = [];
    for (const { name } of tables.rows)
      for (const row of (await sql.raw<Record<string, unknown>>(`SELECT * FROM "${name}"`).execute(db)).rows)
        rows.push(
          `${name}: ${JSON.stringify(row, (_k, v: unknown) =>
            typeof v === 'bigint'
              ? String(v)
              : v instanceof Uint8Array
                ? Buffer.from(v).toString('latin1')
                : v,
          )}`,
        );
    return rows;
  }

  it('leaves no row that names it or holds what it kept', async () => {
    const { web, call } = await agentOn(app);
    const accountId = (await app.stores.accounts.findByEmail(OWNER.email))!.id;
    const inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await call('sync_inbox', { inboxId }));
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 60 }))['messages'] as {
      messageId: string;
      subject: string;
    }[];
    await firstAttachmentLink(call, inboxId);
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    expectToolOk(await call('begin_triage', { inboxId, agentLabel: 'tidy' }));
    expectToolOk(
      await call('act_on_messages', {
        action: 'star',
        items: [{ inboxId, messageId: listed[0]!.messageId }],
      }),
    );
    expectToolOk(
      await call('create_draft', {
        inboxId,
        to: 'sam@example.test',
        subject: 'Plans',
        text: 'Zebra crossing.',
      }),
    );
    expectToolOk(await call('add_vip', { emails: ['boss@corp.test'] }));
    expectToolOk(
      await call('update_triage_profile', {
        patch: {
          defaults: { junk: { notes: 'Giraffe newsletters are fine.', knownGoodSenders: ['pal@mate.test'] } },
        },
      }),
    );
    const offered = expectToolOk(await call('screen_junk', {}))['messages'] as { messageId: string }[];
    expectToolOk(
      await call('confirm_screening', {
        verdicts: offered.slice(0, 2).map((m) => ({ inboxId, messageId: m.messageId, verdict: 'junk' })),
      }),
    );
    expectToolOk(await call('end_triage', { inboxId, agentLabel: 'tidy', summary: 'Okapi pass.' }));
    const work = expectToolOk(
      await call('add_inbox', {
        label: 'Work',
        provider: 'imap',
        email: 'me@work.test',
        imapHost: 'imap.work.test',
      }),
    );
    const workId = (work['inbox'] as { id: string }).id;
    expectToolOk(await call('start_imap_secret_capture', { inboxId: workId }));
    const resource = new URL('/mcp', app.config.baseUrl).href;
    const { clientId, code } = await approvedCode(web, resource);
    const token = await app.fetch(
      new Request(new URL('/oauth/token', app.config.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...codeGrant(code, resource), client_id: clientId }),
      }),
    );
    expect(token.status).toBe(200);
    const stranger = new WebClient(app);
    await stranger.get('/signin');
    await stranger.post('/signin', { email: OWNER.email, password: 'not the password at all' });

    const kept = [
      accountId,
      inboxId,
      workId,
      OWNER.email,
      'me@work.test',
      'boss@corp.test',
      'pal@mate.test',
      'Zebra',
      'Giraffe',
      'Okapi',
      listed[0]!.subject,
    ];
    const holding = (rows: string[]) => rows.filter((r) => kept.some((k) => r.includes(k)));
    expect(holding(await everyRow()).length).toBeGreaterThan(100); // what the search looks for is there to find

    await web.get('/settings/delete');
    const deleted = await web.post('/settings/delete', { password: OWNER.password, confirm: 'delete' });
    expect(deleted.status).toBe(200);
    expect(holding(await everyRow())).toEqual([]);
  });

  it('leaves no trace of the invitation that created it', async () => {
    const email = 'carol@example.test';
    const password = 'carol’s long passphrase';
    const carol = await invitedAccount(app, email, password);
    expect((await everyRow()).filter((r) => r.includes(email)).length).toBeGreaterThan(0);
    await carol.get('/settings/delete');
    expect((await carol.post('/settings/delete', { password, confirm: 'delete' })).status).toBe(200);
    expect((await everyRow()).filter((r) => r.includes(email))).toEqual([]);
  });
});
