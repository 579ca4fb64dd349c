import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { appendViaImap, buildMessage, freshPgDatabase, startDovecot, type Dovecot } from '../rig/index.ts';
import { startFaultProxy, type FaultProxy } from '../rig/fault-proxy.ts';
import { connectImapInbox } from '../support/imap-inbox.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { createTestApp, TEST_KEY } from '../support/test-app.ts';
import { tempDir } from '../support/temp-dir.ts';
import { agentOn, expectToolError, expectToolOk, httpToolCaller } from '../support/tool-caller.ts';
import { eventually } from '../support/eventually.ts';

// PostgreSQL restarted (a failover, maintenance) under a running service: every connection dropped and new ones
// refused for a while. The service stays up, says it is not ready meanwhile, answers calls in words rather than
// hanging or crashing, and comes back by itself: its pool, its watch session (each inbox watched once again), its
// job queue, so that mail that arrived meanwhile shows up.
//
// And PostgreSQL gone silent (the network between them broken, its machine frozen): no reset, no refusal, nothing
// comes back. Without a deadline of its own the service waits for its TCP to give up, about 15 minutes on Linux
// (decision 0063).

const USERS = ['ann', 'bob', 'cat'];
const PASSWORD = 'outage-pass';
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DEADLINE_SECONDS = 6;

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
        DATABASE_QUERY_TIMEOUT_SECONDS: String(DEADLINE_SECONDS),
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

  // What the service said, for a failure that only shows on a loaded machine.
  const logOnFailure = () => {
    onTestFailed(() => {
      console.log(svc.stdout().slice(-6000), svc.stderr().slice(-2000));
    });
  };

  it('stays up, answers in words while the database is away, and recovers by itself', async () => {
    logOnFailure();
    await eventually('one watcher per inbox', oneWatchEach, 30_000);
    await append('ann', 'Outage before');
    await eventually('mail before the outage listed', listed('ann', 'Outage before'), 15_000);

    proxy.refuse(true); // every open connection dropped, new ones closed at once
    await eventually(
      'not ready while the database is away',
      async () => ((await fetch(`${svc.baseUrl}/readyz`)).status === 503 ? true : undefined),
      15_000,
    );
    // A call meanwhile is answered at once, 500 `internal_error` (the credential cannot be checked), not left hanging.
    await expect(httpToolCaller(svc.baseUrl, key)('list_inboxes')).rejects.toThrow(/failed: 500/);
    // Mail keeps arriving while the database is away.
    for (const u of USERS) await append(u, `Outage during ${u}`);
    await pause(3000);
    expect(svc.child.exitCode).toBeNull();

    proxy.refuse(false);
    await eventually(
      'ready again',
      async () => ((await fetch(`${svc.baseUrl}/readyz`)).status === 200 ? true : undefined),
      30_000,
    );
    for (const u of USERS)
      await eventually(`mail of ${u} from during the outage`, listed(u, `Outage during ${u}`), 60_000);
    await eventually('one watcher per inbox again', oneWatchEach, 30_000);
    await append('bob', 'Outage after');
    await eventually('new mail after the outage', listed('bob', 'Outage after'), 15_000);
    expect(svc.stdout() + svc.stderr()).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/); // no stack in the log
  }, 240_000);

  it('answers in words while the database is silent, and recovers by itself when it speaks again', async () => {
    logOnFailure();
    const call = httpToolCaller(svc.baseUrl, key);
    await eventually(
      'ready',
      async () => ((await fetch(`${svc.baseUrl}/readyz`)).status === 200 ? true : undefined),
      30_000,
    );
    await append('cat', 'Outage silent before');
    await eventually('mail before the silence listed', listed('cat', 'Outage silent before'), 15_000);
    const silentMail = async () =>
      expectToolOk(await call('list_messages', { inboxId: inboxOf.get('cat'), query: 'Outage silent' }))[
        'messages'
      ] as { messageId: string }[];
    const [message] = await silentMail();
    if (message === undefined) throw new Error('no message to act on');

    const archive = () =>
      call('act_on_messages', {
        action: 'archive',
        items: [{ inboxId: inboxOf.get('cat'), messageId: message.messageId }],
      });

    // Only the inbox's lock goes unanswered (a change takes it on a session of its own, before anything else): the
    // change fails in words and nothing is changed; the lock session is dropped, which frees whatever it held.
    const lockSent = proxy.holdWhen('up', /pg_advisory_lock\(/);
    expectToolError(await archive(), 'internal_error');
    await lockSent;
    proxy.clear();
    expect((await silentMail()).map((m) => m.messageId)).toContain(message.messageId);

    // From here until clear(), PostgreSQL's bytes are held on every connection, open or new: each step below returns
    // only because the service gives up by itself. Without the deadline, the test times out here.
    proxy.inject({ kind: 'stall', ms: 3_600_000 }, { future: true });
    const ready = await fetch(`${svc.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable', reason: 'no answer within 4 s' });
    await expect(call('list_inboxes')).rejects.toThrow(/failed: 500/);
    await expect(archive()).rejects.toThrow(/failed: 500/);
    expect(svc.child.exitCode).toBeNull();
    expect(svc.stdout() + svc.stderr()).toContain(
      `PostgreSQL did not answer within DATABASE_QUERY_TIMEOUT_SECONDS (${String(DEADLINE_SECONDS)} s)`,
    );

    proxy.clear();
    await eventually(
      'ready again',
      async () => {
        const r = await fetch(`${svc.baseUrl}/readyz`);
        if (r.status !== 200) throw new Error(await r.text());
        return true;
      },
      30_000,
    );
    expect(expectToolOk(await archive())['undoId']).toEqual(expect.any(String));
    expect((await silentMail()).map((m) => m.messageId)).not.toContain(message.messageId);
    await eventually('one watcher per inbox again', oneWatchEach, 30_000);
    await append('ann', 'Outage silent after');
    await eventually('new mail after the silence', listed('ann', 'Outage silent after'), 15_000);
    expect(svc.stdout() + svc.stderr()).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);
  }, 240_000);
});
