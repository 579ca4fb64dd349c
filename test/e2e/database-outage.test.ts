import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendViaImap, buildMessage, freshPgDatabase, startDovecot, type Dovecot } from '../rig/index.ts';
import { startFaultProxy, type FaultProxy } from '../rig/fault-proxy.ts';
import { connectImapInbox } from '../support/imap-inbox.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { createTestApp, TEST_KEY } from '../support/test-app.ts';
import { tempDir } from '../support/temp-dir.ts';
import { agentOn, expectToolOk, httpToolCaller } from '../support/tool-caller.ts';

// PostgreSQL restarted (a failover, maintenance) under a running service: every connection dropped and new ones
// refused for a while. The service stays up, says it is not ready meanwhile, answers calls in words rather than
// hanging or crashing, and comes back by itself: its pool, its watch session (each inbox watched once again), its
// job queue, so that mail that arrived meanwhile shows up.

const USERS = ['ann', 'bob', 'cat'];
const PASSWORD = 'outage-pass';
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end)
      throw new Error(`${what}: not within ${String(ms)} ms ${last instanceof Error ? last.message : ''}`);
    await pause(100);
  }
}

describe('PostgreSQL restarted under a running service', () => {
  let dovecot: Dovecot;
  let proxy: FaultProxy;
  let svc: ServiceProcess;
  let key: string;
  const inboxOf = new Map<string, string>();

  beforeAll(async () => {
    const url = await freshPgDatabase();
    dovecot = await startDovecot();
    for (const u of USERS) await dovecot.addUser(u, PASSWORD);
    const setup = await createTestApp({ pgUrl: url });
    const owner = await agentOn(setup);
    key = owner.key;
    for (const u of USERS)
      inboxOf.set(u, await connectImapInbox(setup, owner.call, { dovecot, user: u, password: PASSWORD }));
    await setup.close();
    const u = new URL(url);
    proxy = await startFaultProxy({ host: u.hostname, port: Number(u.port) });
    u.port = String(proxy.port);
    svc = await startService(
      {
        DATABASE_URL: u.toString(),
        ENCRYPTION_KEY: TEST_KEY.toString('base64'),
        IMAP_INSECURE_HOSTS: '127.0.0.1,localhost',
        IMAP_REUSE_SECONDS: '1',
        DATA_DIR: tempDir('outage-'),
      },
      60_000,
    );
  }, 120_000);

  afterAll(async () => {
    // A crash shows here: its stack is the process's last words.
    if (svc.child.exitCode !== null) console.log(svc.stderr().slice(-4000));
    svc.child.kill('SIGKILL');
    await proxy.close();
    await dovecot.stop();
  });

  const oneWatchEach = async () => {
    const who = await dovecot.connections();
    return USERS.every((u) => who.get(u) === 1) ? true : undefined;
  };

  async function append(user: string, subject: string): Promise<void> {
    await appendViaImap({
      host: '127.0.0.1',
      port: dovecot.port,
      user,
      password: PASSWORD,
      messages: [
        {
          raw: buildMessage({
            from: { address: 'ping@example.test', name: 'Ping' },
            to: [{ address: `${user}@example.test` }],
            subject,
            date: new Date(),
            messageId: `<${subject.replaceAll(' ', '-')}@rig.test>`,
            text: 'Ping.',
          }),
          internalDate: new Date(),
        },
      ],
    });
  }

  const listed = (user: string, subject: string) => async () => {
    const r = expectToolOk(
      await httpToolCaller(svc.baseUrl, key)('list_messages', {
        inboxId: inboxOf.get(user),
        query: 'Outage',
        limit: 5,
      }),
    );
    return (r['messages'] as { subject: string }[]).some((m) => m.subject === subject) ? true : undefined;
  };

  it('stays up, answers in words while the database is away, and recovers by itself', async () => {
    await until('one watcher per inbox', oneWatchEach, 30_000);
    await append('ann', 'Outage before');
    await until('mail before the outage listed', listed('ann', 'Outage before'), 15_000);

    proxy.refuse(true); // every open connection dropped, new ones closed at once
    await until(
      'not ready while the database is away',
      async () => ((await fetch(`${svc.baseUrl}/readyz`)).status === 503 ? true : undefined),
      15_000,
    );
    const during = await fetch(`${svc.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_inboxes', arguments: {} },
      }),
    });
    expect(during.status).toBeGreaterThanOrEqual(500);
    const body = (await during.json()) as { error?: { message?: string } };
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/); // words, not a stack
    // Mail keeps arriving while the database is away.
    for (const u of USERS) await append(u, `Outage during ${u}`);
    await pause(3000);
    expect(svc.child.exitCode).toBeNull();

    proxy.refuse(false);
    await until(
      'ready again',
      async () => ((await fetch(`${svc.baseUrl}/readyz`)).status === 200 ? true : undefined),
      30_000,
    );
    for (const u of USERS)
      await until(`mail of ${u} from during the outage`, listed(u, `Outage during ${u}`), 60_000);
    await until('one watcher per inbox again', oneWatchEach, 30_000);
    await append('bob', 'Outage after');
    await until('new mail after the outage', listed('bob', 'Outage after'), 15_000);
    expect(svc.stdout() + svc.stderr()).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/); // no stack in the log
  }, 240_000);
});
