import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoMailbox } from '../../src/adapters/mail/demo/demo-mailbox.ts';
import type { App } from '../../src/app.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolOk, toolCaller, toolsListStatus } from '../support/tool-caller.ts';
import { createKeyViaPage, type WebClient } from '../support/web-client.ts';

// Three service instances on one PostgreSQL database (each with its own pools, so its own database sessions, as
// separate processes have): the contract's promises hold on every node at once (decision 0024).
describe('three instances on one PostgreSQL keep every promise on every node', () => {
  let nodes: App[];
  let web: WebClient;
  let key: string;
  let inboxId: string;
  const callers = (k: string) => nodes.map((n) => toolCaller(n, k));

  beforeAll(async () => {
    const pgUrl = await freshPgDatabase();
    const first = await createTestApp({ pgUrl });
    ({ web, key } = await agentOn(first));
    nodes = [first, await createTestApp({ pgUrl }), await createTestApp({ pgUrl })];
    inboxId = (expectToolOk(await callers(key)[0]!('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await callers(key)[1]!('sync_inbox', { inboxId }));
  }, 60_000);
  afterAll(async () => {
    for (const n of nodes) await n.close();
  });

  const statusOn = (node: App, token: string) =>
    toolsListStatus((r) => node.fetch(r), node.config.baseUrl, token);

  it('a key revoked on one node is refused by the very next request on the others', async () => {
    const doomed = await createKeyViaPage(web, 'doomed');
    for (const n of nodes) expect(await statusOn(n, doomed)).toBe(200);
    const account = (await nodes[0]!.stores.accounts.findByEmail('owner@example.test'))!;
    const listed = await nodes[0]!.services.apiKeys.list(account.id);
    const target = listed.find((k) => k.name === 'doomed')!;
    expect(
      await nodes[0]!.services.apiKeys.revoke(account.id, target.id, { ip: '127.0.0.1', userAgent: null }),
    ).toBe(true);
    expect(await statusOn(nodes[1]!, doomed)).toBe(401);
    expect(await statusOn(nodes[2]!, doomed)).toBe(401);
  });

  it('an expired plan is refused (402) on every node at once', async () => {
    for (const n of nodes) expect(await statusOn(n, key)).toBe(200);
    await nodes[2]!.services.accounts.setPlan('owner@example.test', 'trial', { trialDays: -1 });
    for (const n of nodes) expect(await statusOn(n, key)).toBe(402);
    await nodes[2]!.services.accounts.setPlan('owner@example.test', 'pro');
    for (const n of nodes) expect(await statusOn(n, key)).toBe(200);
  });

  it('30 concurrent act_on_messages per node on one message: one move, one undo handle', async () => {
    const [messageId] = (
      expectToolOk(await callers(key)[0]!('list_messages', { inboxId, limit: 1 }))['messages'] as {
        messageId: string;
      }[]
    ).map((m) => m.messageId);
    const item = { inboxId, messageId: messageId! };
    const results = await Promise.all(
      callers(key).flatMap((call) =>
        Array.from({ length: 30 }, () => call('act_on_messages', { action: 'archive', items: [item] })),
      ),
    );
    const handles = results.flatMap((r) => (r.isError ? [] : [r.body['undoId']])).filter((u) => u !== null);
    expect(handles).toHaveLength(1);
    const moved = results.filter((r) => !r.isError && (r.body['changed'] as unknown[]).length === 1);
    expect(moved).toHaveLength(1);
    expect(expectToolOk(await callers(key)[2]!('get_message', item))['folder']).toBe('archive');
    // The one undo works once, from any node.
    const undone = await Promise.all(callers(key).map((call) => call('undo_action', { undoId: handles[0] })));
    expect(undone.filter((r) => !r.isError)).toHaveLength(1);
  });

  it('begin_triage from every node at once: one holder', async () => {
    const results = await Promise.all(
      callers(key).flatMap((call, n) =>
        Array.from({ length: 5 }, (_, i) =>
          call('begin_triage', { inboxId, agentLabel: `node${String(n)}-agent${String(i)}`, force: true }),
        ),
      ),
    );
    expect(results.filter((r) => !r.isError && r.body['started'] === true)).toHaveLength(1);
    expect(results.filter((r) => r.isError).map((r) => r.body['error'])).toEqual(
      Array.from({ length: 14 }, () => 'lease_held'),
    );
  });

  it('100 concurrent send_draft with one code, spread over the nodes: one message', async () => {
    const [call] = callers(key);
    expectToolOk(await call!('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    const offered = expectToolOk(
      await call!('create_draft', {
        inboxId,
        to: 'sam@example.test',
        subject: 'Once, cluster-wide',
        text: 'Hi',
      }),
    );
    const before = (await new DemoMailbox(nodes[0]!.db, inboxId).rows('Sent')).length;
    const all = callers(key);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        all[i % 3]!('send_draft', {
          pendingSendId: offered['pendingSendId'],
          approvalCode: offered['approvalCode'],
          humanApprovedInChat: true,
        }),
      ),
    );
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    expect((await new DemoMailbox(nodes[0]!.db, inboxId).rows('Sent')).length).toBe(before + 1);
  });

  it('“Disconnect everything” on one node ends every key on the others at the next request', async () => {
    const other = await createKeyViaPage(web, 'other');
    for (const n of nodes) expect(await statusOn(n, other)).toBe(200);
    const res = await web.post('/settings/agents/disconnect-all', {});
    expect(res.status).toBe(303);
    for (const n of nodes) {
      expect(await statusOn(n, other)).toBe(401);
      expect(await statusOn(n, key)).toBe(401);
    }
  });
});

describe('three instances starting at the same instant on an empty PostgreSQL database', () => {
  it('all become ready and each migration is applied once', async () => {
    const pgUrl = await freshPgDatabase();
    const started = await Promise.allSettled([0, 1, 2].map(() => createTestApp({ pgUrl })));
    const nodes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      expect(started.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      for (const n of nodes)
        expect((await n.fetch(new Request(`${n.config.baseUrl}/readyz`))).status).toBe(200);
      const applied = await sql<{ name: string }>`SELECT name FROM schema_migrations ORDER BY name`.execute(
        nodes[0]!.db.kysely,
      );
      const names = applied.rows.map((r) => r.name);
      expect(names.length).toBeGreaterThan(10);
      expect(new Set(names).size).toBe(names.length);
    } finally {
      for (const n of nodes) await n.close();
    }
  });
});
