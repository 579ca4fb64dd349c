import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../rig/free-port.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { startPgBouncer, type PgBouncer, type PoolMode } from '../rig/pgbouncer.ts';
import { runService, startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';
import { createTestApp, TEST_KEY } from '../support/test-app.ts';
import { agentOn, expectToolError, expectToolOk, httpToolCaller } from '../support/tool-caller.ts';
import { createKeyViaPage } from '../support/web-client.ts';

/**
 * The service behind a real PgBouncer (decision 0131): in session mode, as the README says it may run, two instances
 * keep one lease and one change at a time per inbox; in transaction or statement mode, which hand one database session
 * to many clients and with it the locks the service holds for a session's length, it refuses to start and says why.
 */
const running: ServiceProcess[] = [];
const bouncers: PgBouncer[] = [];
afterAll(async () => {
  for (const s of running) s.child.kill('SIGTERM');
  await Promise.all(running.map((s) => s.exited));
  for (const b of bouncers) await b.stop();
});

async function behind(mode: PoolMode): Promise<{ pgUrl: string; url: string }> {
  const pgUrl = await freshPgDatabase();
  const b = await startPgBouncer(pgUrl, mode);
  bouncers.push(b);
  return { pgUrl, url: b.url };
}

const env = (url: string, name: string) => ({
  DATABASE_URL: url,
  ENCRYPTION_KEY: TEST_KEY.toString('base64'),
  DATA_DIR: tempDir(name),
});

describe('behind a connection pooler', () => {
  it('in session mode, two instances keep one lease and one change at a time per inbox', async () => {
    const { pgUrl, url } = await behind('session');
    const setup = await createTestApp({ pgUrl });
    const { web, key } = await agentOn(setup);
    const other = await createKeyViaPage(web, 'other');
    await setup.close();
    const nodes = await Promise.all([
      startService(env(url, 'pooled-a-'), 60_000),
      startService(env(url, 'pooled-b-'), 60_000),
    ]);
    running.push(...nodes);
    const a = httpToolCaller(nodes[0].baseUrl, key);
    const b = httpToolCaller(nodes[1].baseUrl, key);
    const inboxId = (expectToolOk(await a('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await a('sync_inbox', { inboxId }));
    const ids = (
      expectToolOk(await b('list_messages', { inboxId, limit: 8 }))['messages'] as { messageId: string }[]
    ).map((m) => m.messageId);
    expect(ids).toHaveLength(8);

    expectToolOk(await a('begin_triage', { inboxId, agentLabel: 'first', force: true }));
    expectToolError(
      await httpToolCaller(nodes[1].baseUrl, other)('begin_triage', {
        inboxId,
        agentLabel: 'second',
        force: true,
      }),
      'lease_held',
    );
    // The holder's changes, dealt to both instances at once: each one done, none lost.
    const trashed = await Promise.all(
      ids.map((messageId, i) => (i % 2 === 0 ? a : b)('trash_message', { inboxId, messageId })),
    );
    for (const t of trashed) expect(expectToolOk(t)['changed']).toHaveLength(1);
    const left = expectToolOk(await b('list_messages', { inboxId, limit: 200 }))['messages'] as {
      messageId: string;
    }[];
    expect(left.filter((m) => ids.includes(m.messageId))).toEqual([]);
    for (const n of nodes) expect(n.stdout()).not.toMatch(/"level":"(error|fatal)"/);
  }, 120_000);

  it.each(['transaction', 'statement'] as const)(
    'in %s mode, the service and its migrations refuse to start, say why, and have changed nothing',
    async (mode) => {
      const { pgUrl, url } = await behind(mode);
      for (const command of ['serve', 'migrate']) {
        const svc = runService([command], { PORT: String(await freePort()), ...env(url, `pooled-${mode}-`) });
        running.push(svc);
        expect(await svc.exited, svc.stderr()).toBe(1);
        expect(svc.stderr()).toContain(
          'inbox-triage: DATABASE_URL reaches PostgreSQL through a connection pooler that shares one database session',
        );
        expect(svc.stderr()).toContain('PgBouncer pool_mode = session');
        expect(svc.stdout()).not.toContain('listening');
      }
      const direct = new pg.Client({ connectionString: pgUrl });
      await direct.connect();
      try {
        const tables = await direct.query(
          "select count(*)::int as n from information_schema.tables where table_schema = 'public'",
        );
        expect(tables.rows[0]).toEqual({ n: 0 });
      } finally {
        await direct.end();
      }
    },
    60_000,
  );
});
