import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testTls } from '../rig/https-sink.ts';
import { startPgCluster } from '../rig/pg-cluster.ts';
import { runService, startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';
import { freePort } from '../rig/free-port.ts';

// README (the database paragraph): DATABASE_URL's sslmode and sslrootcert reach every connection the service opens
// (its pool, the action locks, the watch session, the job queue), and a certificate it cannot verify stops it at once.

describe('PostgreSQL over TLS', () => {
  let cluster: Awaited<ReturnType<typeof startPgCluster>>;
  let caFile: string;
  const running: ServiceProcess[] = [];
  beforeAll(async () => {
    const tls = testTls(['127.0.0.1']);
    cluster = await startPgCluster({ tls });
    caFile = join(tempDir('tls-ca-'), 'ca.pem');
    writeFileSync(caFile, tls.ca);
  });
  afterAll(async () => {
    for (const s of running) s.child.kill('SIGKILL');
    await cluster.stop();
  });

  it('with sslmode=verify-full and the CA: serves, and every session it opens is encrypted', async () => {
    const db = new URL(await cluster.createDatabase());
    const url = `${db.toString()}?sslmode=verify-full&sslrootcert=${encodeURIComponent(caFile)}`;
    const svc = await startService({ DATABASE_URL: url, DATA_DIR: tempDir('tls-') }, 60_000);
    running.push(svc);
    expect((await fetch(`${svc.baseUrl}/readyz`)).status).toBe(200);

    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ application_name: string; ssl: boolean }>(
        `select a.application_name, s.ssl from pg_stat_activity a join pg_stat_ssl s using (pid)
          where a.datname = $1 and a.pid <> pg_backend_pid()`,
        [db.pathname.slice(1)],
      );
      // The watch session (inbox claims) and pg-boss's are open by now; the pool's as requests came.
      expect(rows.map((r) => r.application_name)).toContain('inbox-triage-watch');
      expect(rows.length).toBeGreaterThanOrEqual(3);
      expect(rows.filter((r) => !r.ssl)).toEqual([]);
    } finally {
      await admin.end();
    }
    svc.child.kill('SIGTERM');
    expect(await svc.exited).toBe(0);
  });

  it('without the CA: stops at once (a certificate is not a database still starting)', async () => {
    const url = `${await cluster.createDatabase()}?sslmode=verify-full`;
    const svc = runService(['serve'], {
      PORT: String(await freePort()),
      DATABASE_URL: url,
      DATA_DIR: tempDir('tls-'),
      DATABASE_WAIT_SECONDS: '3600',
    });
    running.push(svc);
    expect(await svc.exited).toBe(1);
    expect(svc.stderr()).toBe(
      'inbox-triage: could not connect to the database: unable to verify the first certificate; ' +
        'if the root CA is installed locally, try running Node.js with --use-system-ca\n',
    );
    expect(svc.stdout()).not.toContain('waiting for the database');
  });
});
