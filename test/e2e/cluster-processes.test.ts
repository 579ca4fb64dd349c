import { execFile } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import type { AccountId } from '../../src/core/accounts/account.ts';
import { appendViaImap, buildMessage, freshPgDatabase, startDovecot, startSmtpSink } from '../rig/index.ts';
import type { Dovecot, SmtpSink } from '../rig/index.ts';
import { connectImapInbox, mailboxState } from '../support/imap-inbox.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { createTestApp, TEST_KEY } from '../support/test-app.ts';
import { tempDir } from '../support/temp-dir.ts';
import {
  agentOn,
  expectToolOk,
  httpToolCaller,
  toolCaller,
  toolsListStatus,
} from '../support/tool-caller.ts';
import { createKeyViaPage, invitedAccount } from '../support/web-client.ts';
import { eventually } from '../support/eventually.ts';

const INBOXES = 30;
const PASSWORD = 'cluster-pass';
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const user = (i: number) => `u${String(i).padStart(2, '0')}`;

/** Established connections to Dovecot's port per process id, as the kernel sees them. */
function connectionsByPid(port: number): Promise<Map<number, number>> {
  return new Promise((resolve, reject) => {
    execFile('ss', ['-Htnp', 'state', 'established', `( dport = :${String(port)} )`], (err, out) => {
      if (err !== null) {
        reject(new Error(err.message));
        return;
      }
      const counts = new Map<number, number>();
      for (const m of out.matchAll(/pid=(\d+)/g))
        counts.set(Number(m[1]), (counts.get(Number(m[1])) ?? 0) + 1);
      resolve(counts);
    });
  });
}

// Three service processes on one PostgreSQL, Dovecot holding 30 inboxes of two accounts (decision 0024).
describe('three service processes on one PostgreSQL with 30 IMAP inboxes', () => {
  let dovecot: Dovecot;
  let sink: SmtpSink;
  let pgUrl: string;
  let nodes: ServiceProcess[] = [];
  let control: App;
  /** What beforeAll started, stopped in reverse by afterAll (whatever beforeAll got to). */
  const cleanups: (() => Promise<unknown>)[] = [];
  let ownerKey: string;
  let otherKey: string;
  let ownerId: AccountId;
  const inboxOf = new Map<string, string>();
  const env = () => ({
    DATABASE_URL: pgUrl,
    ENCRYPTION_KEY: TEST_KEY.toString('base64'),
    IMAP_INSECURE_HOSTS: '127.0.0.1,localhost',
    // Dovecot counts a login kept for the next read too; the IDLE count below wants only the watches.
    IMAP_REUSE_SECONDS: '1',
    SYNC_INTERVAL_SECONDS: '300',
    RATE_LIMIT_MCP_PER_MINUTE: '1000000',
    RATE_LIMIT_API_PER_MINUTE: '1000000',
    DATA_DIR: tempDir('node-'),
  });
  const live = () => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
  const oneEach = async () => {
    const who = await dovecot.connections();
    const counts = Array.from({ length: INBOXES }, (_, i) => who.get(user(i)) ?? 0);
    return counts.every((c) => c === 1) ? counts : undefined;
  };

  beforeAll(async () => {
    pgUrl = await freshPgDatabase();
    dovecot = await startDovecot();
    cleanups.push(() => dovecot.stop());
    sink = await startSmtpSink();
    cleanups.push(() => sink.stop());
    for (let i = 0; i < INBOXES; i++) await dovecot.addUser(user(i), PASSWORD);
    // Set up through one in-process instance, closed before the nodes start (its watchers handed back).
    const setup = await createTestApp({ pgUrl });
    const owner = await agentOn(setup);
    ownerKey = owner.key;
    const otherWeb = await invitedAccount(setup, 'other@example.test');
    await setup.services.accounts.setPlan('other@example.test', 'pro');
    otherKey = await createKeyViaPage(otherWeb);
    const otherCall = toolCaller(setup, otherKey);
    for (let i = 0; i < INBOXES; i++) {
      const call = i < INBOXES / 2 ? owner.call : otherCall;
      const id = await connectImapInbox(setup, call, {
        dovecot,
        user: user(i),
        password: PASSWORD,
        ...(i === 0 && { smtpPort: sink.port }),
      });
      inboxOf.set(user(i), id);
    }
    ownerId = (await setup.stores.accounts.findByEmail('owner@example.test'))!.id;
    await setup.close();
    // Started together (the suite runs other files meanwhile: give them time to boot).
    nodes = await Promise.all([0, 1, 2].map(() => startService(env(), 90_000)));
    // A fourth instance for the person's side, never watching (it connects nothing and starts no background sync).
    // It does work the shared queue's sync jobs, like every node: its logins kept for reuse are as short-lived as
    // theirs, or the IDLE counts below would see them (20 s in the test app) for the inboxes it synced.
    control = await createTestApp({ pgUrl, config: { imapReuseSeconds: 1 } });
    cleanups.push(() => control.close());
  }, 240_000);

  afterAll(async () => {
    for (const n of nodes) n.child.kill('SIGTERM');
    await Promise.all(nodes.map((n) => n.exited));
    for (const stop of cleanups.reverse()) await stop();
  });

  it('holds exactly one IDLE connection per inbox, shared among the nodes', async () => {
    // Once the first round of syncs is over, only the watchers' connections remain.
    const perNode = await eventually(
      'one connection per inbox',
      async () => {
        if ((await oneEach()) === undefined) return undefined;
        const byPid = await connectionsByPid(dovecot.port);
        const counts = nodes.map((n) => byPid.get(n.child.pid!) ?? 0);
        // Roughly even: each node near its share (30 / 3), once the first node's early claims were handed on.
        return counts.reduce((a, b) => a + b, 0) === INBOXES && counts.every((c) => c >= 8 && c <= 12)
          ? counts
          : undefined;
      },
      60_000,
    );
    console.log(`watchers per node: ${perNode.join(', ')}`);
  }, 90_000);

  /** Appends a message with this subject to the user's INBOX, from another IMAP client. */
  async function appendPing(i: number, subject: string): Promise<void> {
    const at = new Date();
    await appendViaImap({
      host: '127.0.0.1',
      port: dovecot.port,
      user: user(i),
      password: PASSWORD,
      messages: [
        {
          raw: buildMessage({
            from: { address: 'ping@example.test', name: 'Ping' },
            to: [{ address: `${user(i)}@example.test` }],
            subject,
            date: at,
            messageId: `<ping-${String(i)}-${String(at.getTime())}-${String(Math.random()).slice(2)}@rig.test>`,
            text: 'Ping.',
          }),
          internalDate: at,
        },
      ],
    });
  }

  /** Waits until the message with this subject is listed in the user's inbox through the node. */
  async function listedThrough(node: ServiceProcess, i: number, subject: string, ms: number): Promise<void> {
    const call = httpToolCaller(node.baseUrl, i < INBOXES / 2 ? ownerKey : otherKey);
    await eventually(
      `new mail of ${user(i)} through ${node.baseUrl}`,
      async () => {
        const r = expectToolOk(
          await call('list_messages', { inboxId: inboxOf.get(user(i)), query: 'Cluster ping', limit: 5 }),
        );
        return (r['messages'] as { subject: string }[]).some((m) => m.subject === subject) ? true : undefined;
      },
      ms,
    );
  }

  /** Appends a message to each given user's INBOX and waits until another node lists it; returns the delays. */
  async function newMailSeen(users: number[]): Promise<number[]> {
    const seen: number[] = [];
    for (const [n, i] of users.entries()) {
      const subject = `Cluster ping ${String(i)} ${String(Date.now())}`;
      const node = live()[(n + 1) % live().length]!;
      const started = Date.now();
      await appendPing(i, subject);
      await listedThrough(node, i, subject, 15_000);
      seen.push(Date.now() - started);
    }
    return seen;
  }

  /**
   * Mail that arrived while an inbox had no watcher (between one node letting it go and another taking it over)
   * is there once the inboxes are watched again: a watcher that starts syncs once, for what it cannot hear.
   */
  const ALL = Array.from({ length: INBOXES }, (_, i) => i);
  async function appendToAll(tag: string): Promise<Map<number, string>> {
    const subjects = new Map(ALL.map((i) => [i, `Cluster ping ${tag} ${String(i)} ${String(Date.now())}`]));
    for (const [i, subject] of subjects) await appendPing(i, subject);
    return subjects;
  }
  async function allListed(subjects: Map<number, string>): Promise<void> {
    for (const [i, subject] of subjects) await listedThrough(live()[i % live().length]!, i, subject, 10_000);
  }

  it('shows new mail in any inbox through any node', async () => {
    const delays = await newMailSeen([0, 4, 9, 13]);
    console.log(`new mail visible after ${delays.map((d) => `${String(d)} ms`).join(', ')}`);
  }, 90_000);

  it('kill -9 of the node holding the most inboxes: the others watch them all again, none twice', async () => {
    const byPid = await connectionsByPid(dovecot.port);
    const busiest = [...nodes].sort(
      (a, b) => (byPid.get(b.child.pid!) ?? 0) - (byPid.get(a.child.pid!) ?? 0),
    )[0]!;
    const held = byPid.get(busiest.child.pid!) ?? 0;
    const killedAt = Date.now();
    busiest.child.kill('SIGKILL');
    await busiest.exited;
    const meanwhile = await appendToAll('failover');
    // Watched again: one connection per inbox at Dovecot, every one of them held by a live node. Read together and
    // retried as one: a sync the new mail starts opens a second login for a moment, which is not a second watcher.
    await eventually(
      'the dead node’s inboxes watched again',
      async () => {
        const counts = await oneEach();
        const pids = await connectionsByPid(dovecot.port);
        const onLive = live()
          .map((n) => pids.get(n.child.pid!) ?? 0)
          .reduce((a, b) => a + b, 0);
        return counts !== undefined && !pids.has(busiest.child.pid!) && onLive === INBOXES ? true : undefined;
      },
      45_000,
    );
    console.log(`${String(held)} inboxes taken over in ${String(Date.now() - killedAt)} ms`);
    await allListed(meanwhile);
    await newMailSeen([1, 20]);
  }, 180_000);

  const statusOn = (node: ServiceProcess, token: string) => toolsListStatus(fetch, node.baseUrl, token);

  it('a key revoked on one instance is refused by the very next request on every node; so is an expired plan', async () => {
    const made = await control.services.apiKeys.create(ownerId, 'short-lived', {
      ip: '127.0.0.1',
      userAgent: null,
    });
    if (!made.ok) throw new Error('key');
    for (const n of live()) expect(await statusOn(n, made.value.secret)).toBe(200);
    expect(
      await control.services.apiKeys.revoke(ownerId, made.value.key.id, { ip: '127.0.0.1', userAgent: null }),
    ).toBe(true);
    for (const n of live()) expect(await statusOn(n, made.value.secret)).toBe(401);
    await control.services.accounts.setPlan('owner@example.test', 'trial', { trialDays: -1 });
    for (const n of live()) expect(await statusOn(n, ownerKey)).toBe(402);
    await control.services.accounts.setPlan('owner@example.test', 'pro');
    for (const n of live()) expect(await statusOn(n, ownerKey)).toBe(200);
  });

  it('racing over the nodes: one archive and one undo handle, one lease holder, one message sent', async () => {
    const calls = live().map((n) => httpToolCaller(n.baseUrl, ownerKey));
    const inboxId = inboxOf.get(user(0))!;
    const [first] = expectToolOk(await calls[0]!('list_messages', { inboxId, limit: 1 }))['messages'] as {
      messageId: string;
    }[];
    const item = { inboxId, messageId: first!.messageId };
    const before = await mailboxState(dovecot, user(0), PASSWORD);
    const acted = await Promise.all(
      calls.flatMap((call) =>
        Array.from({ length: 30 }, () => call('act_on_messages', { action: 'archive', items: [item] })),
      ),
    );
    expect(acted.filter((r) => !r.isError && r.body['undoId'] !== null)).toHaveLength(1);
    const after = await mailboxState(dovecot, user(0), PASSWORD);
    expect(after.length).toBe(before.length);
    expect(after.filter((l) => !before.includes(l))).toHaveLength(1);

    const leases = await Promise.all(
      calls.flatMap((call, n) =>
        Array.from({ length: 5 }, (_, i) =>
          call('begin_triage', { inboxId, agentLabel: `n${String(n)}a${String(i)}`, force: true }),
        ),
      ),
    );
    expect(leases.filter((r) => !r.isError && r.body['started'] === true)).toHaveLength(1);

    expectToolOk(await calls[0]!('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    const offered = expectToolOk(
      await calls[1]!('create_draft', {
        inboxId,
        to: 'sam@example.test',
        subject: 'Exactly once',
        text: 'Hi',
      }),
    );
    const sent = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        calls[i % calls.length]!('send_draft', {
          pendingSendId: offered['pendingSendId'],
          approvalCode: offered['approvalCode'],
          humanApprovedInChat: true,
        }),
      ),
    );
    expect(sent.filter((r) => !r.isError)).toHaveLength(1);
    await pause(500);
    expect(sink.received.filter((m) => m.raw.toString('utf8').includes('Exactly once'))).toHaveLength(1);
  }, 60_000);

  it('watch sessions cut at PostgreSQL: the nodes stop those watchers at once and share the inboxes again', async () => {
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    // The node killed with -9 above may still have a backend until PostgreSQL notices its socket closed.
    await eventually(
      'one watch session per live node at PostgreSQL',
      async () => {
        const r = await admin.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'inbox-triage-watch'",
        );
        return (r.rows[0] as { n: number }).n === live().length ? true : undefined;
      },
      15_000,
    );
    const cut = await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'inbox-triage-watch'",
    );
    await admin.end();
    expect(cut.rowCount).toBe(live().length);
    const meanwhile = await appendToAll('cut');
    const perNode = await eventually(
      'one watcher per inbox again, on both nodes',
      async () => {
        if ((await oneEach()) === undefined) return undefined;
        const byPid = await connectionsByPid(dovecot.port);
        const counts = live().map((n) => byPid.get(n.child.pid!) ?? 0);
        return counts.reduce((a, b) => a + b, 0) === INBOXES && counts.every((c) => c > 0)
          ? counts
          : undefined;
      },
      30_000,
    );
    console.log(`after the cut: ${perNode.join(', ')}`);
    await allListed(meanwhile);
    await newMailSeen([7, 22]);
  }, 180_000);

  it('SIGTERM: the node drains, hands its inboxes over and exits 0; the last node watches all 30', async () => {
    for (const n of live()) expect((await fetch(`${n.baseUrl}/readyz`)).status).toBe(200);
    const [leaving, staying] = live();
    leaving!.child.kill('SIGTERM');
    expect(await leaving!.exited).toBe(0);
    expect(leaving!.stdout() + leaving!.stderr()).toContain('stopped');
    const meanwhile = await appendToAll('handover');
    await eventually(
      'every inbox watched by the last node',
      async () => {
        if ((await oneEach()) === undefined) return undefined;
        const byPid = await connectionsByPid(dovecot.port);
        return byPid.get(staying!.child.pid!) === INBOXES ? true : undefined;
      },
      30_000,
    );
    await allListed(meanwhile);
    await newMailSeen([5, 25]);
  }, 120_000);
});

describe('three service processes started at the same instant on an empty PostgreSQL database', () => {
  it('all become ready, and each migration is applied once', async () => {
    const url = await freshPgDatabase();
    const env = () => ({
      DATABASE_URL: url,
      ENCRYPTION_KEY: TEST_KEY.toString('base64'),
      DATA_DIR: tempDir('boot-'),
    });
    const started = await Promise.allSettled([0, 1, 2].map(() => startService(env(), 90_000)));
    const nodes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      expect(started.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      for (const n of nodes) {
        const ready = await eventually(
          `${n.baseUrl} ready`,
          async () => ((await fetch(`${n.baseUrl}/readyz`)).status === 200 ? true : undefined),
          30_000,
        );
        expect(ready).toBe(true);
        expect(n.stdout() + n.stderr()).not.toMatch(/migration .* failed/);
      }
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      const { rows } = await admin.query<{ name: string; n: string }>(
        'SELECT name, count(*) AS n FROM schema_migrations GROUP BY name',
      );
      await admin.end();
      expect(rows.length).toBeGreaterThanOrEqual(13);
      expect(rows.every((r) => r.n === '1')).toBe(true);
    } finally {
      for (const n of nodes) n.child.kill('SIGTERM');
      await Promise.all(nodes.map((n) => n.exited));
    }
  }, 120_000);
});
