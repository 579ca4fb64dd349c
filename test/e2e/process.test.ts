import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsFor } from '../../src/adapters/storage/migrations/index.ts';
import { freePort } from '../rig/free-port.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { runService, startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';

const running: ServiceProcess[] = [];
afterAll(() => {
  for (const s of running) s.child.kill('SIGKILL');
});

async function stop(svc: ServiceProcess): Promise<{ code: number | string; ms: number }> {
  const t = performance.now();
  svc.child.kill('SIGTERM');
  const code = await svc.exited;
  return { code, ms: performance.now() - t };
}

describe('the service as a process (npm start)', () => {
  it('listens, answers health and readiness, stops on SIGTERM with exit 0, and restarts on the same data', async () => {
    const dataDir = tempDir('proc-');
    const first = await startService({ DATA_DIR: dataDir });
    running.push(first);
    expect((await fetch(`${first.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${first.baseUrl}/readyz`)).status).toBe(200);
    expect(first.stdout()).toContain(`Inbox Triage is running at ${first.baseUrl}`);
    expect(first.stdout()).toContain('"msg":"migrations applied"');
    const key = readFileSync(join(dataDir, 'encryption.key'), 'utf8');

    const stopped = await stop(first);
    expect(stopped.code).toBe(0);
    expect(first.stdout()).toContain('"msg":"shutting down: draining in-flight requests"');
    expect(first.stdout()).toContain('"msg":"stopped"');

    const second = await startService({ DATA_DIR: dataDir });
    running.push(second);
    expect((await fetch(`${second.baseUrl}/readyz`)).status).toBe(200);
    // Same database (nothing left to migrate) and the same key file, untouched.
    expect(second.stdout()).not.toContain('migrations applied');
    expect(readFileSync(join(dataDir, 'encryption.key'), 'utf8')).toBe(key);
    expect((await stop(second)).code).toBe(0);
  });

  it('refuses a second service on the same SQLite data, and the lock goes with the process however it ends', async () => {
    const dataDir = tempDir('proc-');
    const first = await startService({ DATA_DIR: dataDir });
    running.push(first);
    const second = runService(['serve'], { PORT: String(await freePort()), DATA_DIR: dataDir });
    running.push(second);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toBe(
      `inbox-triage: another Inbox Triage service is running on ${join(dataDir, 'inbox-triage.db')}: stop it ` +
        'first, or give this one its own DATA_DIR (several services on one database need PostgreSQL: DATABASE_URL)\n',
    );
    expect((await fetch(`${first.baseUrl}/readyz`)).status).toBe(200);
    // The CLI still opens the database beside the running service.
    const account = runService(['account', 'list'], { DATA_DIR: dataDir });
    expect(await account.exited).toBe(0);

    first.child.kill('SIGKILL');
    await first.exited;
    const third = await startService({ DATA_DIR: dataDir });
    running.push(third);
    expect((await fetch(`${third.baseUrl}/readyz`)).status).toBe(200);
    expect((await stop(third)).code).toBe(0);
  });

  it('says at start, in the banner and the log, when a setting will not work as an operator expects', async () => {
    const svc = await startService({ DATA_DIR: tempDir('proc-'), BASE_URL: 'http://triage.test' });
    running.push(svc);
    expect(svc.stdout()).toContain(
      '  Warning: BASE_URL is http://triage.test, plain http to another machine',
    );
    expect(svc.stdout()).toMatch(/"level":"warn".*"msg":"BASE_URL is http:\/\/triage\.test, plain http/);
    expect((await stop(svc)).code).toBe(0);
  });

  it('names a port another program holds and what to change, in one line', async () => {
    const holder = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const svc = runService(['serve'], { PORT: String(port), DATA_DIR: tempDir('proc-') });
      expect(await svc.exited).toBe(1);
      expect(svc.stderr()).toBe(
        `inbox-triage: 127.0.0.1:${String(port)} is already in use by another program: stop it, or set PORT to a free port\n`,
      );
    } finally {
      holder.close();
    }
  });

  it('rejects a bad value with one clear line and exit code 2', async () => {
    const svc = runService(['serve'], { PORT: 'abc', DATA_DIR: tempDir('proc-') });
    expect(await svc.exited).toBe(2);
    expect(svc.stderr()).toBe(
      'inbox-triage: invalid configuration: PORT: expected an integer between 1 and 65535, got "abc"\n',
    );
    expect(svc.stdout()).toBe('');
  });

  it('answers --version, --help and an unknown command', async () => {
    const version = runService(['--version'], {});
    expect(await version.exited).toBe(0);
    expect(version.stdout().trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = runService(['--help'], {});
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toContain('migrate');
    const unknown = runService(['frobnicate'], {});
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toBe('inbox-triage: unknown command "frobnicate" (try --help)\n');
  });

  it('runs on PostgreSQL when DATABASE_URL says so, and `migrate` is idempotent there', async () => {
    const url = await freshPgDatabase();
    const migrate = runService(['migrate'], { DATABASE_URL: url, DATA_DIR: tempDir('proc-') });
    expect(await migrate.exited).toBe(0);
    expect(migrate.stdout()).toBe(`Applied: ${Object.keys(migrationsFor('postgres')).join(', ')}\n`);
    const again = runService(['migrate'], { DATABASE_URL: url, DATA_DIR: tempDir('proc-') });
    expect(await again.exited).toBe(0);
    expect(again.stdout()).toBe('Database is up to date.\n');

    const firstDir = tempDir('proc-');
    const svc = await startService({ DATABASE_URL: url, DATA_DIR: firstDir });
    running.push(svc);
    expect((await fetch(`${svc.baseUrl}/readyz`)).status).toBe(200);
    expect(svc.stdout()).toContain('"database":"postgres"');
    expect(svc.stdout()).not.toContain(url); // the URL carries a password
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' order by 1",
    );
    await client.end();
    expect(rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['accounts', 'folders', 'inboxes', 'messages', 'settings', 'schema_migrations']),
    );
    expect((await stop(svc)).code).toBe(0);

    // Another instance with a key of its own (its DATA_DIR generated one): it refuses to start (decision 0042).
    const otherDir = tempDir('proc-');
    const refused = runService(['serve'], {
      DATABASE_URL: url,
      DATA_DIR: otherDir,
      PORT: String(await freePort()),
    });
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toContain('is not the key this database was set up with');
    expect(refused.stderr()).toContain('inbox-triage key adopt');
    // The operator says the old key is lost: the other key becomes the database's, and the first is refused.
    const adopt = runService(['key', 'adopt'], { DATABASE_URL: url, DATA_DIR: otherDir });
    expect(await adopt.exited).toBe(0);
    const adopted = await startService({ DATABASE_URL: url, DATA_DIR: otherDir });
    running.push(adopted);
    expect((await fetch(`${adopted.baseUrl}/readyz`)).status).toBe(200);
    expect((await stop(adopted)).code).toBe(0);
    const old = runService(['serve'], {
      DATABASE_URL: url,
      DATA_DIR: firstDir,
      PORT: String(await freePort()),
    });
    expect(await old.exited).toBe(2);
  });
});
