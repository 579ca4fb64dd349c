// Crash trials (issue 21, R1): the real service, as a child process on SQLite or PostgreSQL, against Dovecot and the
// SMTP sink, is killed with SIGKILL at a random moment during one operation, restarted, and checked against the
// promises that matter: the index converges to the mailbox, no message is sent twice or recorded sent without
// reaching the server, every mailbox change can be undone (or did not happen), no OAuth sign-in is lost, and a
// migration cut short completes on the next start. `npm test` runs 24 trials on SQLite (four of each kind) and 12 on
// PostgreSQL; `npm run bench -- --only trials` runs 240 and 120.
import { createApp } from '../../src/app.ts';
import type { Config } from '../../src/config/index.ts';
import { resolveEncryptionKey } from '../../src/config/encryption-key.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import type { Dovecot, SmtpSink } from './index.ts';
import { appendViaImap } from './append-via-imap.ts';
import { startFaultProxy, type FaultProxy } from './fault-proxy.ts';
import { startMailServers } from './mail-servers.ts';
import { createPrng, type Prng } from './prng.ts';
import { connectImapInbox, draftsWithSubject, imapClient, mailboxState } from '../support/imap-inbox.ts';
import { runService, startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';
import { sqliteTrials, type TrialEngine, type TrialStore } from './trial-database.ts';
import { TEST_RATE_LIMITS, testConfig } from '../support/test-app.ts';
import { approvedCode, codeGrant } from '../support/oauth-code.ts';
import { agentOn, httpToolCaller } from '../support/tool-caller.ts';
import type { WebClient } from '../support/web-client.ts';

export const TRIAL_KINDS = ['sync', 'act', 'draft', 'send', 'refresh', 'migration'] as const;
export type TrialKind = (typeof TRIAL_KINDS)[number];

export interface TrialFailure {
  readonly trial: number;
  readonly kind: TrialKind;
  readonly killAfterMs: number;
  readonly problem: string;
}

export interface CrashTally {
  readonly seed: number;
  readonly trials: number;
  /** Per kind: trials run, and how many were killed before the operation had answered (the rest finished first). */
  readonly kinds: Record<TrialKind, { trials: number; killedMidOperation: number }>;
  readonly failures: readonly TrialFailure[];
  readonly seconds: number;
  /** Refreshes killed after their rotation was committed and before its answer reached the host. */
  readonly refreshesKilledAfterCommit: number;
}

const USER = 'crash';
const PASSWORD = 'crash-imap-password';
const BASE = 'http://127.0.0.1:8787';
/** Room under the kill point: the longest a kind's operation was seen to take, times this. */
const KILL_SPREAD = 1.2;

class TrialProblem extends Error {}
const check = (ok: boolean, problem: string): void => {
  if (!ok) throw new TrialProblem(problem);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const bare = (id: string | null | undefined) => (id ?? '?').replace(/^<|>$/g, '');

interface Rig {
  readonly dovecot: Dovecot;
  /** Between the service and Dovecot: passes bytes through, or holds back an answer a trial waits for. */
  readonly imapTap: FaultProxy;
  readonly sink: SmtpSink;
  readonly dataDir: string;
  readonly engine: TrialEngine;
  /** The service's database, read from outside. */
  readonly store: TrialStore;
  /** A second node runs beside the first and carries on after the kill (see `runCrashTrials`). */
  readonly standingNode: boolean;
  readonly apiKey: string;
  readonly inboxId: string;
  readonly env: Record<string, string>;
  /** OAuth sign-ins prepared ahead: a trial refreshes the current one, and moves on only if it was lost. */
  readonly families: { clientId: string; refresh: string }[];
  readonly referenceSchema: string;
  readonly counts: { refreshesKilledAfterCommit: number };
}

export async function runCrashTrials(o: {
  trials: number;
  seed: number;
  /** Only these kinds, in turn (default: every kind); for replaying one kind's failures. */
  only?: readonly TrialKind[];
  /** The service's database (default: SQLite in its data directory). */
  engine?: TrialEngine;
  /**
   * Two nodes on the one database (PostgreSQL only): a second service process runs beside the first from the start,
   * and when the first is killed the second carries on — the agent's retry, the undo, the next sync go to it.
   */
  standingNode?: boolean;
  log?: (line: string) => void;
}): Promise<CrashTally> {
  const started = performance.now();
  const rng = createPrng(o.seed);
  const engine = o.engine ?? sqliteTrials;
  if (o.standingNode === true && engine.name !== 'postgres')
    throw new Error('several nodes share a PostgreSQL database only');
  const rig = await prepare(Math.ceil(o.trials / TRIAL_KINDS.length) + 1, engine, o.standingNode === true);
  const kinds = Object.fromEntries(
    TRIAL_KINDS.map((k) => [k, { trials: 0, killedMidOperation: 0 }]),
  ) as Record<TrialKind, { trials: number; killedMidOperation: number }>;
  // How long each operation took when it finished before the kill; the kill point is drawn below (a little beyond)
  // the longest of those times, outliers left out (over 3× the median): one slow call would otherwise put most
  // kills after the operation had already answered.
  const initial: Record<TrialKind, number> = {
    sync: 400,
    act: 150,
    draft: 100,
    send: 100,
    refresh: 20,
    migration: 60,
  };
  const observed: Record<TrialKind, number[]> = {
    sync: [],
    act: [],
    draft: [],
    send: [],
    refresh: [],
    migration: [],
  };
  const typical = (kind: TrialKind): number => {
    const times = [...observed[kind]].sort((a, b) => a - b);
    if (times.length < 3) return Math.max(initial[kind], ...times);
    const median = times[Math.floor(times.length / 2)]!;
    return Math.max(...times.filter((t) => t <= 3 * median));
  };
  const failures: TrialFailure[] = [];
  try {
    for (let trial = 1; trial <= o.trials; trial++) {
      const order = o.only ?? TRIAL_KINDS;
      const kind = order[(trial - 1) % order.length]!;
      const killAfterMs = Math.round(rng.next() * typical(kind) * KILL_SPREAD);
      let outcome: { finishedMs: number | undefined };
      try {
        outcome = await TRIALS[kind](rig, rng, trial, killAfterMs);
        kinds[kind].trials++;
        if (outcome.finishedMs === undefined) kinds[kind].killedMidOperation++;
        else observed[kind].push(outcome.finishedMs);
      } catch (e) {
        kinds[kind].trials++;
        const problem = e instanceof Error ? e.message : String(e);
        failures.push({ trial, kind, killAfterMs, problem });
        o.log?.(`trial ${String(trial)} (${kind}, kill after ${String(killAfterMs)} ms): ${problem}`);
      }
    }
  } finally {
    await rig.imapTap.close();
    await rig.sink.stop();
    await rig.dovecot.stop();
    await rig.store.close();
  }
  return {
    seed: o.seed,
    trials: o.trials,
    kinds,
    failures,
    seconds: (performance.now() - started) / 1000,
    refreshesKilledAfterCommit: rig.counts.refreshesKilledAfterCommit,
  };
}

/** One Dovecot user with mail, the sink, and a data directory with an owner, a key, the inbox and OAuth sign-ins. */
async function prepare(families: number, engine: TrialEngine, standingNode: boolean): Promise<Rig> {
  const { dovecot, sink } = await startMailServers({
    user: USER,
    password: PASSWORD,
    mail: Array.from({ length: 120 }, (_, i) => mail(`seed-${String(i)}`)),
  });
  const dataDir = tempDir('crash-trials-');
  const store = await engine.store(dataDir);
  const encryptionKey = resolveEncryptionKey(undefined, dataDir);
  // One OAuth sign-in for every six trials, made in a row from one address: the bench's 240 trials need 41, past the
  // anonymous requests of a minute, so the budget is lifted here as it is for the service the trials start.
  const config: Config = testConfig({
    baseUrl: BASE,
    dataDir,
    database: store.config,
    rateLimits: { ...TEST_RATE_LIMITS, anonymousPerMinute: 100_000 },
  });
  const imapTap = await startFaultProxy({ host: '127.0.0.1', port: dovecot.port });
  const app = await createApp(config, { encryptionKey, ...store.secrets }, { log: silentLogger });
  try {
    const agent = await agentOn(app);
    const inboxId = await connectImapInbox(app, agent.call, {
      dovecot: { ...dovecot, port: imapTap.port },
      user: USER,
      password: PASSWORD,
      smtpPort: sink.port,
    });
    const enabled = await agent.call('set_send_enabled', { enabled: true, humanConfirmedInChat: true });
    if (enabled.isError) throw new Error('set_send_enabled failed');
    const signIns = [];
    for (let i = 0; i < families; i++) signIns.push(await signIn(agent.web));
    return {
      dovecot,
      imapTap,
      sink,
      dataDir,
      engine,
      store,
      standingNode,
      apiKey: agent.key,
      inboxId,
      env: {
        ...store.env,
        DATA_DIR: dataDir,
        BASE_URL: BASE,
        IMAP_INSECURE_HOSTS: '127.0.0.1',
        RATE_LIMIT_MCP_PER_MINUTE: '100000',
        RATE_LIMIT_API_PER_MINUTE: '100000',
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
        // Hundreds of trials write drafts into one inbox, on a database kept between them.
        RATE_LIMIT_DRAFTS_PER_INBOX_PER_DAY: '100000',
      },
      families: signIns,
      counts: { refreshesKilledAfterCommit: 0 },
      referenceSchema: await referenceSchema(engine),
    };
  } finally {
    await app.close();
  }
}

/** One OAuth sign-in as an MCP host makes it: registration, consent in the person's browser, code for tokens. */
async function signIn(web: WebClient): Promise<{ clientId: string; refresh: string }> {
  const { clientId, code } = await approvedCode(web, `${BASE}/mcp`);
  const tokens = await web.request('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, ...codeGrant(code, `${BASE}/mcp`) }),
  });
  const body = (await tokens.json()) as { refresh_token?: string };
  if (body.refresh_token === undefined) throw new Error(`no refresh token: ${JSON.stringify(body)}`);
  return { clientId, refresh: body.refresh_token };
}

type Trial = (
  rig: Rig,
  rng: Prng,
  trial: number,
  killAfterMs: number,
) => Promise<{ finishedMs: number | undefined }>;

/**
 * Starts the service, runs `operation` (after `before`, which is not raced), kills the process `killAfterMs` into
 * the operation, starts it again and hands the new process to `after` — or, with a standing node, hands that one,
 * running since before the operation. Returns how long the operation took if it finished before the kill.
 */
async function crashDuring<T>(
  rig: Rig,
  killAfterMs: number,
  steps: {
    before?: (svc: ServiceProcess) => Promise<T>;
    operation: (svc: ServiceProcess, prepared: T) => Promise<unknown>;
    /** When to kill instead of after `killAfterMs`: once this resolves (or the operation answered). */
    killWhen?: ((prepared: T) => Promise<void>) | undefined;
    after: (svc: ServiceProcess, prepared: T, answered: boolean) => Promise<void>;
  },
): Promise<{ finishedMs: number | undefined }> {
  rig.imapTap.clear();
  await rig.store.forgetRequestBudgets();
  const first = await startService(rig.env);
  // Several nodes: another one already running when the first dies takes over, rather than the first restarted.
  const standing = rig.standingNode
    ? await startService(rig.env).catch((e: unknown) => {
        first.child.kill('SIGKILL');
        throw e;
      })
    : undefined;
  let prepared: T;
  try {
    prepared = (await steps.before?.(first)) as T;
  } catch (e) {
    first.child.kill('SIGKILL');
    standing?.child.kill('SIGKILL');
    throw e;
  }
  const t0 = performance.now();
  let finishedMs: number | undefined;
  const op = steps.operation(first, prepared).then(
    () => (finishedMs = performance.now() - t0),
    () => undefined,
  );
  await Promise.race([steps.killWhen?.(prepared) ?? sleep(killAfterMs), op]);
  first.child.kill('SIGKILL');
  await first.exited;
  await op;
  const answered = finishedMs !== undefined;
  const second =
    standing ??
    (await startService(rig.env).catch((e: unknown) => {
      throw new TrialProblem(`the service did not start again after the kill: ${String(e)}`);
    }));
  try {
    await steps.after(second, prepared, answered);
  } finally {
    second.child.kill('SIGTERM');
    const code = await second.exited;
    check(
      code === 0,
      `the ${standing ? 'other node' : 'restarted service'} exited with ${String(code)} on SIGTERM`,
    );
  }
  return { finishedMs };
}

const TRIALS: Record<TrialKind, Trial> = {
  // Another client changes the mailbox, then the service syncs and dies part-way; after the next sync the index
  // must list exactly what the mailbox holds, with the same read and starred state.
  async sync(rig, rng, trial, killAfterMs) {
    await changeMailbox(rig, rng, trial);
    return crashDuring(rig, killAfterMs, {
      operation: (svc) => okCall(svc, rig, 'sync_inbox', { inboxId: rig.inboxId }),
      async after(svc) {
        await okCall(svc, rig, 'sync_inbox', { inboxId: rig.inboxId });
        await indexMatchesMailbox(rig);
      },
    });
  },

  // A change and its undo, killed anywhere: afterwards every handle left unused must put the mailbox back exactly.
  async act(rig, rng, _trial, killAfterMs) {
    const since = Date.now();
    return crashDuring(rig, killAfterMs, {
      async before(svc) {
        const page = await okCall(svc, rig, 'list_messages', { inboxId: rig.inboxId, limit: 50 });
        const ids = (page['messages'] as { messageId: string }[]).map((m) => m.messageId);
        const picked = [...new Set(Array.from({ length: 1 + rng.int(4) }, () => rng.pick(ids)))];
        return {
          before: await mailboxState(rig.dovecot, USER, PASSWORD),
          action: rng.pick(['archive', 'trash', 'spam', 'star', 'unstar'] as const),
          items: picked.map((messageId) => ({ inboxId: rig.inboxId, messageId })),
        };
      },
      async operation(svc, p) {
        const done = await okCall(svc, rig, 'act_on_messages', { action: p.action, items: p.items });
        if (typeof done['undoId'] === 'string')
          await okCall(svc, rig, 'undo_action', { undoId: done['undoId'] });
      },
      async after(svc, p) {
        await okCall(svc, rig, 'sync_inbox', { inboxId: rig.inboxId });
        // The agent's answer died with the process; the handle is where the person finds it (their activity page).
        for (const undoId of await unusedUndoHandles(rig, since))
          await okCall(svc, rig, 'undo_action', { undoId });
        const now = await mailboxState(rig.dovecot, USER, PASSWORD);
        check(
          sameList(now, p.before),
          `the mailbox differs from before the ${p.action} and no undo handle puts it back: ${diff(p.before, now)}`,
        );
        await okCall(svc, rig, 'sync_inbox', { inboxId: rig.inboxId });
        await indexMatchesMailbox(rig);
      },
    });
  },

  // A draft's mailbox copy being written when the process dies: a `create_draft`, or the draft card saving an edit
  // (`update_draft_from_card` with the card's code) — killed at a random moment, or the moment Dovecot answers the
  // APPEND (the answer held back at the tap: the copy is stored, the service never learns it). After the restart and
  // the background sweep for unfinished work (run as if ten minutes had passed): every copy in Drafts is a draft the
  // service records, one copy per draft, holding the recorded text; a call that answered kept what it wrote.
  async draft(rig, rng, trial, killAfterMs) {
    const subject = `Draft trial ${String(trial)}`;
    const edit = rng.chance(0.5);
    const onAnswer = rng.chance(0.5);
    const [first, second] = ['First words.', 'Second words.'];
    return crashDuring(rig, killAfterMs, {
      async before(svc) {
        let code: string | undefined;
        if (edit) {
          const created = await okCall(svc, rig, 'create_draft', {
            inboxId: rig.inboxId,
            to: 'frank@example.org',
            subject,
            text: first,
          });
          const draftId = (created['draft'] as { id: string }).id;
          const shown = await httpToolCaller(svc.baseUrl, rig.apiKey)('show_draft', {
            inboxId: rig.inboxId,
            draftId,
          });
          code = (shown.meta?.['inbox-triage/card'] as { code?: string } | undefined)?.code;
          if (code === undefined) throw new TrialProblem('show_draft gave the card no code');
        }
        return { code };
      },
      operation: (svc, { code }) =>
        code === undefined
          ? okCall(svc, rig, 'create_draft', {
              inboxId: rig.inboxId,
              to: 'frank@example.org',
              subject,
              text: first,
            })
          : okCall(svc, rig, 'update_draft_from_card', {
              nonce: code,
              to: 'frank@example.org',
              subject,
              body: second,
            }),
      killWhen: onAnswer ? () => rig.imapTap.holdWhen('down', / OK \[APPENDUID /) : undefined,
      async after(_svc, _prepared, answered) {
        rig.imapTap.clear(); // a tap the operation never met would hold the sweep's own APPEND
        await sweepUnfinishedDrafts(rig);
        const copies = (await draftsWithSubject(rig.dovecot, USER, PASSWORD, subject)).map((c) => ({
          ...c,
          messageId: bare(c.messageId),
        }));
        const rows = (await rig.store.rows(
          "select internet_message_id, folder_path, body from drafts where subject = ? and status = 'draft'",
          [subject],
        )) as { internet_message_id: string; folder_path: string | null; body: string }[];
        const what = edit ? 'the edit' : 'create_draft';
        check(
          rows.every((r) => r.folder_path !== null),
          `a draft whose copy was left half-written is still unfinished after the sweep (${what})`,
        );
        check(
          sameList(
            copies.map((c) => c.messageId),
            rows.map((r) => bare(r.internet_message_id)),
          ),
          `Drafts holds [${copies.map((c) => c.messageId).join(', ')}] but the service records [${rows.map((r) => bare(r.internet_message_id)).join(', ')}] (${what})`,
        );
        for (const r of rows) {
          const text = copies.find((c) => c.messageId === bare(r.internet_message_id))?.text;
          check(
            text === r.body,
            `the copy in Drafts says "${String(text)}", the draft "${r.body}" (${what})`,
          );
        }
        if (answered)
          check(
            rows.length === 1 && rows[0]?.body === (edit ? second : first),
            `${what} answered, but its draft is not what it wrote`,
          );
        if (edit) check(rows.length === 1, 'the edited draft is gone');
      },
    });
  },

  // An approved send killed anywhere, then retried by the agent with the same code: at most one message at the
  // server, and "sent" only if the server has it.
  async send(rig, _rng, trial, killAfterMs) {
    const subject = `Crash trial ${String(trial)}`;
    const atSink = () =>
      rig.sink.received.filter((m) => m.raw.toString('utf8').includes(`Subject: ${subject}\r\n`)).length;
    return crashDuring(rig, killAfterMs, {
      async before(svc) {
        const created = await okCall(svc, rig, 'create_draft', {
          inboxId: rig.inboxId,
          to: 'frank@example.org',
          subject,
          text: 'Once only.',
        });
        return {
          pendingSendId: created['pendingSendId'] as string,
          approvalCode: created['approvalCode'] as string,
          humanApprovedInChat: true,
        };
      },
      operation: (svc, approval) => okCall(svc, rig, 'send_draft', approval),
      async after(svc, approval) {
        await httpToolCaller(svc.baseUrl, rig.apiKey)('send_draft', approval); // the agent tries again
        await sleep(50); // a message in flight to the sink lands
        const [row] = await rig.store.rows('select status from pending_sends where id = ?', [
          approval.pendingSendId,
        ]);
        const status = String(row?.['status']);
        const n = atSink();
        check(n <= 1, `the sink received the message ${String(n)} times`);
        if (status === 'sent') check(n === 1, 'recorded sent, but the sink never received it');
        else
          check(
            status === 'sending' || status === 'unknown',
            `after the retry the send is "${status}" with ${String(n)} at the sink`,
          );
      },
    });
  },

  // A refresh killed anywhere: the host keeps whichever refresh token it last received (the new one if the answer
  // came, else the old one) and must still be able to refresh with it. Half the kills wait for the rotation to be
  // written (its new refresh token appears in the database): the moment between the commit and the answer reaching
  // the host, which a random moment rarely hits, since a refresh takes a few milliseconds.
  async refresh(rig, rng, _trial, killAfterMs) {
    const family = rig.families[0];
    if (family === undefined) throw new TrialProblem('no OAuth sign-in left to try');
    const refresh = (svc: ServiceProcess, token: string) =>
      fetch(`${svc.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          client_id: family.clientId,
          refresh_token: token,
          resource: `${BASE}/mcp`,
        }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, string> }));
    const atCommit = rng.next() < 0.5;
    const watch = { tokens: await refreshTokens(rig), answered: false, committed: false };
    // Read while the service writes: a read that would have to wait has not seen the rotation yet.
    const rotated = async () => {
      try {
        return (await refreshTokens(rig)) > watch.tokens;
      } catch {
        return false;
      }
    };
    const outcome = await crashDuring(rig, killAfterMs, {
      async operation(svc) {
        try {
          const r = await refresh(svc, family.refresh);
          if (r.status === 200 && r.body['refresh_token'] !== undefined)
            family.refresh = r.body['refresh_token'];
        } finally {
          watch.answered = true;
        }
      },
      killWhen: atCommit
        ? async () => {
            while (!watch.answered && !(await rotated())) await sleep(0);
            watch.committed = !watch.answered;
          }
        : undefined,
      async after(svc) {
        const r = await refresh(svc, family.refresh);
        if (r.status !== 200) rig.families.shift(); // lost: later trials use the next sign-in
        check(
          r.status === 200,
          `the sign-in was lost: the refresh answered ${String(r.status)} ${JSON.stringify(r.body)}`,
        );
        family.refresh = r.body['refresh_token'] ?? '';
        const mcp = await fetch(`${svc.baseUrl}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${r.body['access_token'] ?? ''}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        });
        check(mcp.status === 200, `the refreshed access token was refused: ${String(mcp.status)}`);
      },
    });
    if (watch.committed && outcome.finishedMs === undefined) rig.counts.refreshesKilledAfterCommit++;
    return outcome;
  },

  // `migrate` on an empty data directory, killed after a random number of migrations (watched from outside):
  // the next run completes, and the schema equals that of an uninterrupted run.
  async migration(rig, rng, trial) {
    const dir = tempDir(`crash-migrate-${String(trial)}-`);
    const store = await rig.engine.store(dir);
    try {
      const env = { ...store.env, DATA_DIR: dir };
      const total = rig.referenceSchema.split('\n').filter((l) => l.startsWith('migration ')).length;
      const target = rng.int(total + 1);
      const t0 = performance.now();
      const svc = runService(['migrate'], env);
      let applied = -1;
      while (svc.child.exitCode === null && applied < target) {
        applied = await appliedMigrations(store);
        if (applied < target) await sleep(1);
      }
      await sleep(rng.int(3));
      svc.child.kill('SIGKILL');
      await svc.exited;
      const finishedMs = svc.child.signalCode === null ? performance.now() - t0 : undefined;
      const again = runService(['migrate'], env);
      const code = await again.exited;
      check(code === 0, `migrate after the kill exited with ${String(code)}: ${again.stderr().slice(-400)}`);
      const schema = await store.schema();
      check(
        schema === rig.referenceSchema,
        `the schema after the kill differs:\n${diff(rig.referenceSchema.split('\n'), schema.split('\n'))}`,
      );
      return { finishedMs };
    } finally {
      await store.close();
    }
  },
};

/** Another mail client at work: new mail, deletions, read and starred changes, a move to Archive. */
async function changeMailbox(rig: Rig, rng: Prng, trial: number): Promise<void> {
  await appendViaImap({
    host: '127.0.0.1',
    port: rig.dovecot.port,
    user: USER,
    password: PASSWORD,
    messages: Array.from({ length: 3 + rng.int(8) }, (_, i) => ({
      raw: mail(`t${String(trial)}-${String(i)}`),
    })),
  });
  const c = await imapClient(rig.dovecot, USER, PASSWORD);
  try {
    const lock = await c.getMailboxLock('INBOX');
    try {
      const uids = (await c.search({ all: true }, { uid: true })) || [];
      const some = (n: number) => [...new Set(Array.from({ length: n }, () => rng.pick(uids)))];
      if (uids.length > 60) await c.messageDelete(some(1 + rng.int(4)), { uid: true });
      await c.messageFlagsAdd(some(rng.int(6)), ['\\Seen'], { uid: true });
      await c.messageFlagsRemove(some(rng.int(6)), ['\\Seen'], { uid: true });
      await c.messageFlagsAdd(some(rng.int(3)), ['\\Flagged'], { uid: true });
      await c.messageFlagsRemove(some(rng.int(3)), ['\\Flagged'], { uid: true });
      const left = (await c.search({ all: true }, { uid: true })) || [];
      if (left.length > 60) await c.messageMove([rng.pick(left)], 'Archive', { uid: true });
    } finally {
      lock.release();
    }
  } finally {
    await c.logout();
  }
}

/** Every selected folder of the inbox: the index lists what the mailbox holds, read and starred alike. */
async function indexMatchesMailbox(rig: Rig): Promise<void> {
  const rows = (await rig.store.rows(
    `select f.path, m.internet_message_id as mid, m.unread, m.starred from messages m
     join folders f on f.id = m.folder_id where m.inbox_id = ? and f.selected = 1`,
    [rig.inboxId],
  )) as { path: string; mid: string | null; unread: number; starred: number }[];
  const paths = [
    ...new Set(
      (
        await rig.store.rows('select path from folders where inbox_id = ? and selected = 1', [rig.inboxId])
      ).map((r) => String(r['path'])),
    ),
  ];
  const indexed = rows.map(
    (r) => `${r.path} | ${bare(r.mid)} | ${r.unread ? 'unread' : 'read'}${r.starred ? ' starred' : ''}`,
  );
  const actual: string[] = [];
  const c = await imapClient(rig.dovecot, USER, PASSWORD);
  try {
    for (const path of paths) {
      const lock = await c.getMailboxLock(path);
      try {
        if (c.mailbox === false || c.mailbox.exists === 0) continue;
        for await (const m of c.fetch('1:*', { envelope: true, flags: true })) {
          const flags = m.flags ?? new Set<string>();
          actual.push(
            `${path} | ${bare(m.envelope?.messageId)} | ${flags.has('\\Seen') ? 'read' : 'unread'}${flags.has('\\Flagged') ? ' starred' : ''}`,
          );
        }
      } finally {
        lock.release();
      }
    }
  } finally {
    await c.logout();
  }
  check(
    sameList(indexed, actual),
    `the index differs from the mailbox after a sync: ${diff(actual, indexed)}`,
  );
}

/**
 * The background sweep for drafts whose creation did not finish, run here on the trial's data directory (beside the
 * restarted service) with a clock ten minutes ahead, the age at which the service's own sweep takes them.
 */
async function sweepUnfinishedDrafts(rig: Rig): Promise<void> {
  const config: Config = testConfig({ baseUrl: BASE, dataDir: rig.dataDir, database: rig.store.config });
  const later = { now: () => new Date(Date.now() + 11 * 60_000) };
  const app = await createApp(
    config,
    { encryptionKey: resolveEncryptionKey(undefined, rig.dataDir), ...rig.store.secrets },
    { log: silentLogger, clock: later },
  );
  try {
    await app.services.tools.drafts.recoverUnfinished();
  } finally {
    await app.close();
  }
}

async function unusedUndoHandles(rig: Rig, since: number): Promise<string[]> {
  const rows = await rig.store.rows(
    'select id from undo_records where created_at >= ? and used_at is null order by created_at',
    [since],
  );
  return rows.map((r) => String(r['id']));
}

/** How many refresh tokens the service's database holds; throws rather than wait for a writer. */
async function refreshTokens(rig: Rig): Promise<number> {
  const [row] = await rig.store.rows("select count(*) as n from oauth_tokens where kind = 'refresh'", [], {
    wait: false,
  });
  return Number(row?.['n']);
}

/** How many migrations a database records, or -1 before it has any (read without waiting on locks). */
async function appliedMigrations(store: TrialStore): Promise<number> {
  try {
    const [row] = await store.rows('select count(*) as n from schema_migrations', [], { wait: false });
    return Number(row?.['n']);
  } catch {
    return -1;
  }
}

/** The schema `migrate` makes, run to its end uninterrupted on a database of its own. */
async function referenceSchema(engine: TrialEngine): Promise<string> {
  const dir = tempDir('crash-schema-');
  const store = await engine.store(dir);
  try {
    const svc = runService(['migrate'], { ...store.env, DATA_DIR: dir });
    const code = await svc.exited;
    if (code !== 0) throw new Error(`migrate failed: ${svc.stderr()}`);
    return await store.schema();
  } finally {
    await store.close();
  }
}

async function okCall(
  svc: ServiceProcess,
  rig: Rig,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const r = await httpToolCaller(svc.baseUrl, rig.apiKey)(tool, args);
  if (r.isError) throw new TrialProblem(`${tool} failed: ${JSON.stringify(r.body)}`);
  return r.body;
}

function mail(id: string): Buffer {
  return Buffer.from(
    [
      'From: Dana Sender <dana@example.org>',
      `To: ${USER}@example.test`,
      `Subject: Message ${id}`,
      `Message-ID: <${id}@crash.example.test>`,
      'Date: Tue, 24 Nov 2026 10:00:00 +0000',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `Body of ${id}.`,
      '',
    ].join('\r\n'),
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  const sorted = [...b].sort();
  return a.length === b.length && [...a].sort().every((x, i) => x === sorted[i]);
}

/** What one listing has that the other lacks, a few lines of each. */
function diff(expected: readonly string[], actual: readonly string[]): string {
  const missing = expected.filter((x) => !actual.includes(x));
  const extra = actual.filter((x) => !expected.includes(x));
  return `missing [${missing.slice(0, 5).join('; ')}]${missing.length > 5 ? ` +${String(missing.length - 5)}` : ''}, unexpected [${extra.slice(0, 5).join('; ')}]${extra.length > 5 ? ` +${String(extra.length - 5)}` : ''}`;
}
