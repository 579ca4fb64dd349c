import { afterAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../rig/fault-proxy.ts';
import { freePort } from '../rig/free-port.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { runCommand, runService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';

// Decision 0057: on PostgreSQL the service waits at start for a database that is not up yet (compose, boot order),
// and stops at once for settings no wait would mend.

const running: ServiceProcess[] = [];
const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const s of running) s.child.kill('SIGKILL');
  for (const p of proxies) await p.close();
});

/** The database's URL with its port moved to one where nothing listens yet. */
async function unreachable(
  url: string,
): Promise<{ url: string; port: number; target: { host: string; port: number } }> {
  const u = new URL(url);
  const target = { host: u.hostname, port: Number(u.port) };
  const port = await freePort();
  u.port = String(port);
  return { url: u.toString(), port, target };
}

async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  svc: ServiceProcess,
): Promise<void> {
  while (!(await check())) {
    if (svc.child.exitCode !== null)
      throw new Error(`exited while waiting for ${what}:\n${svc.stderr()}\n${svc.stdout()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const waits = (svc: ServiceProcess) =>
  svc
    .stdout()
    .split('\n')
    .filter((l) => l.includes('waiting for the database to accept connections'));

describe('starting before PostgreSQL is up', () => {
  it('waits while nothing listens and while connections are closed unanswered, then serves', async () => {
    const real = await freshPgDatabase();
    const { url, port, target } = await unreachable(real);
    const svc = runService(['serve'], {
      PORT: String(await freePort()),
      DATABASE_URL: url,
      DATA_DIR: tempDir('wait-'),
      DATABASE_WAIT_SECONDS: '300',
    });
    running.push(svc);
    await until('two waits', () => waits(svc).length >= 2, svc);
    expect(waits(svc).every((l) => l.includes(`ECONNREFUSED 127.0.0.1:${String(port)}`))).toBe(true);

    // Something listens now, but closes every connection before answering (a server still starting).
    const proxy = await startFaultProxy(target, { port });
    proxies.push(proxy);
    proxy.refuse(true);
    await until(
      'a wait on a closed connection',
      // Closed before the server said anything: a reset or an end, whichever the socket sees first.
      () => waits(svc).some((l) => /Connection terminated|ECONNRESET/.test(l)),
      svc,
    );
    expect(svc.stdout()).not.toContain('listening');

    proxy.refuse(false);
    await until(
      'ready',
      async () => {
        try {
          return (await fetch(`${svc.baseUrl}/readyz`)).status === 200;
        } catch {
          return false;
        }
      },
      svc,
    );
    expect(svc.stdout()).toContain('"database":"postgres"');
    expect(svc.stdout()).not.toContain(new URL(real).password || 'no password in the URL');
    svc.child.kill('SIGTERM');
    expect(await svc.exited).toBe(0);
  });

  it('stops at once for a database that does not exist, without waiting', async () => {
    const u = new URL(await freshPgDatabase());
    u.pathname = '/no_such_database_here';
    const svc = runService(['serve'], {
      PORT: String(await freePort()),
      DATABASE_URL: u.toString(),
      DATA_DIR: tempDir('wait-'),
      DATABASE_WAIT_SECONDS: '3600',
    });
    running.push(svc);
    expect(await svc.exited).toBe(1);
    expect(svc.stderr()).toBe(
      'inbox-triage: could not connect to the database: database "no_such_database_here" does not exist\n',
    );
    expect(waits(svc)).toEqual([]);
  });

  it('ends the wait when asked to stop, with exit 0', async () => {
    const { url } = await unreachable(await freshPgDatabase());
    const svc = runService(['serve'], {
      PORT: String(await freePort()),
      DATABASE_URL: url,
      DATA_DIR: tempDir('wait-'),
      DATABASE_WAIT_SECONDS: '3600',
    });
    running.push(svc);
    await until('a wait', () => waits(svc).length >= 1, svc);
    svc.child.kill('SIGTERM');
    expect(await svc.exited).toBe(0);
    expect(svc.stdout()).toContain('Stopped before the database accepted connections.\n');
    expect(svc.stderr()).toBe('');
  });

  it('`migrate` waits as well, and gives up after DATABASE_WAIT_SECONDS with the reason', async () => {
    const { url, port } = await unreachable(await freshPgDatabase());
    const r = await runCommand(
      { DATABASE_URL: url, DATA_DIR: tempDir('wait-'), DATABASE_WAIT_SECONDS: '2' },
      'migrate',
    );
    expect(r.code).toBe(1);
    const lines = r.err.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3); // pauses of 0.25, 0.5, 1 s fit in 2 s
    for (const l of lines.slice(0, -1))
      expect(l).toMatch(
        new RegExp(
          `^inbox-triage: waiting for the database \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${String(port)}\\); trying again in \\d\\.\\d s$`,
        ),
      );
    expect(lines.at(-1)).toBe(
      `inbox-triage: the database did not accept connections within 2 s (DATABASE_WAIT_SECONDS): connect ECONNREFUSED 127.0.0.1:${String(port)}`,
    );
  });
});
