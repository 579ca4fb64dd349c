import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freshPgDatabase } from '../rig/pg.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';
import { createTestApp, TEST_KEY } from '../support/test-app.ts';
import { agentOn, expectToolOk, httpToolCaller } from '../support/tool-caller.ts';

/**
 * DATABASE_POOL_SIZE (decision 0133): an instance on a database plan that allows few connections keeps to what it is
 * given, and its requests wait in turn rather than fail.
 */
const running: ServiceProcess[] = [];
afterAll(async () => {
  for (const s of running) s.child.kill('SIGTERM');
  await Promise.all(running.map((s) => s.exited));
});

describe('DATABASE_POOL_SIZE', () => {
  it('an instance given 2 opens no more than 2 + 2 + 6 connections, and answers every call under load', async () => {
    const pgUrl = await freshPgDatabase();
    const setup = await createTestApp({ pgUrl });
    const { key } = await agentOn(setup);
    await setup.close();
    const svc = await startService(
      {
        DATABASE_URL: pgUrl,
        ENCRYPTION_KEY: TEST_KEY.toString('base64'),
        DATA_DIR: tempDir('pool-size-'),
        DATABASE_POOL_SIZE: '2',
        RATE_LIMIT_MCP_PER_MINUTE: '100000',
      },
      60_000,
    );
    running.push(svc);
    const call = httpToolCaller(svc.baseUrl, key);
    const inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await call('sync_inbox', { inboxId }));
    const ids = (
      expectToolOk(await call('list_messages', { inboxId, limit: 40 }))['messages'] as { messageId: string }[]
    ).map((m) => m.messageId);

    const observer = new pg.Client({ connectionString: pgUrl, application_name: 'observer' });
    await observer.connect();
    const most = new Map<string, number>();
    const state = { sampling: true };
    const sampler = (async () => {
      while (state.sampling) {
        const r = await observer.query<{ name: string; n: number }>(
          `select application_name as name, count(*)::int as n from pg_stat_activity
           where datname = current_database() and application_name <> 'observer' group by 1`,
        );
        for (const { name, n } of r.rows) most.set(name, Math.max(most.get(name) ?? 0, n));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const outcomes: string[] = [];
    try {
      // 24 callers at once, each with its own connection: reads, changes of one inbox, a sync.
      await Promise.all(
        Array.from({ length: 24 }, async (_, w) => {
          const c = httpToolCaller(svc.baseUrl, key);
          for (let i = 0; i < 6; i++) {
            const messageId = ids[(w * 6 + i) % ids.length];
            const r =
              w % 4 === 0
                ? await c('trash_message', { inboxId, messageId })
                : w % 4 === 1
                  ? await c('list_messages', { inboxId, limit: 5 })
                  : w % 4 === 2
                    ? await c('get_message', { inboxId, messageId })
                    : await c('sync_inbox', { inboxId });
            outcomes.push(r.isError ? String(r.body['error']) : 'ok');
          }
        }),
      );
    } finally {
      state.sampling = false;
      await sampler;
      await observer.end();
    }
    // A trash of a message another caller trashed first is `message_not_found`; nothing fails.
    expect(outcomes.filter((o) => o !== 'ok' && o !== 'message_not_found')).toEqual([]);
    expect(outcomes).toHaveLength(144);
    expect(most.get('') ?? 0).toBeLessThanOrEqual(2);
    expect(most.get('inbox-triage-locks') ?? 0).toBeLessThanOrEqual(2);
    expect([...most.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10);
    expect(svc.stdout()).not.toMatch(/"level":"(error|fatal)"/);
  }, 120_000);

  it('an instance that may open more connections than the database allows says so at start', async () => {
    const pgUrl = await freshPgDatabase();
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`alter database "${new URL(pgUrl).pathname.slice(1)}" connection limit 15`);
    await admin.end();
    const env = { DATABASE_URL: pgUrl, ENCRYPTION_KEY: TEST_KEY.toString('base64') };
    const warned = (s: ServiceProcess) =>
      s
        .stdout()
        .split('\n')
        .filter((l) => l.includes('lower DATABASE_POOL_SIZE'))
        .map((l) => JSON.parse(l) as { level: string; msg: string });
    const byDefault = await startService({ ...env, DATA_DIR: tempDir('pool-size-') }, 60_000);
    running.push(byDefault);
    expect(warned(byDefault)).toMatchObject([
      {
        level: 'warn',
        msg: "this instance may open up to 24 connections to PostgreSQL, more than the 15 that the database's CONNECTION LIMIT allows: lower DATABASE_POOL_SIZE (decision 0133)",
        connections: 24,
        allowed: 15,
      },
    ]);
    byDefault.child.kill('SIGTERM');
    await byDefault.exited;
    const fitted = await startService(
      { ...env, DATA_DIR: tempDir('pool-size-'), DATABASE_POOL_SIZE: '4' },
      60_000,
    );
    running.push(fitted);
    expect(warned(fitted)).toEqual([]);
  }, 120_000);
});
