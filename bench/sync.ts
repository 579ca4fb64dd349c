import { SUMMARY_QUERY } from '../src/adapters/mail/imap/summary-fetch.ts';
import { createApp, type App } from '../src/app.ts';
import { readConfiguration } from '../src/config/index.ts';
import type { AccountId } from '../src/core/accounts/account.ts';
import type { Inbox, InboxId } from '../src/core/inboxes/inbox.ts';
import { silentLogger } from '../src/lib/logger.ts';
import { newId } from '../src/lib/random.ts';
import { generateMessages, seedMaildir, startDovecot, type Dovecot } from '../test/rig/index.ts';
import { imapClient } from '../test/support/imap-inbox.ts';
import { tempDir } from '../test/support/temp-dir.ts';
import { wholeAccount } from '../src/core/auth/inbox-reach.ts';

export interface SyncRow {
  readonly window: number;
  readonly oursMs: number;
  readonly rawMs: number;
  /** The median of the per-run ratios (each run times ours right after its own raw baseline). */
  readonly ratio: number;
  readonly incrementalMs: number;
}

export interface SyncResults {
  readonly mailbox: number;
  readonly rows: readonly SyncRow[];
  /**
   * Every header of the mailbox indexed: the first window, then `load_older_messages` (200 a call) to the end,
   * against a raw imapflow FETCH of the same fields for the whole mailbox; messages per second each.
   */
  readonly whole: { readonly oursPerSecond: number; readonly rawPerSecond: number; readonly calls: number };
  readonly newMailMs: readonly number[];
  readonly idle: {
    readonly inboxes: number;
    readonly heapPerInboxKb: number;
    readonly rssPerInboxKb: number;
    readonly connectionsPerInbox: number;
    /** The same, read 5 s after the watchers started, while the logins of the first syncs were still kept. */
    readonly heapWithKeptLoginsKb: number;
    readonly keptConnectionsPerInbox: number;
  };
}

export const PASSWORD = 'bench-password';
/** Runs per window, alternating ours and raw; the median is reported (single runs vary by ±30% here). */
export const SYNC_RUNS = 7;
const collectGarbage = () => (globalThis as { gc?: () => void }).gc?.();
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function appWith(window: number): Promise<App> {
  const { config, secrets } = readConfiguration(
    {
      DATA_DIR: tempDir('bench-sync-'),
      SYNC_WINDOW: String(window),
      IMAP_INSECURE_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'silent',
    },
    process.cwd(),
  );
  return createApp(config, secrets, { log: silentLogger });
}

/** An IMAP inbox of `user` at Dovecot, connected with its password, on the account of `email` (made if missing). */
export async function connectedInbox(
  app: App,
  dovecot: Dovecot,
  user: string,
  email = 'bench@example.test',
): Promise<Inbox> {
  let account = await app.stores.accounts.findByEmail(email);
  if (account === undefined) {
    const id = newId('acct') as AccountId;
    await app.stores.accounts.create({
      id,
      email,
      plan: 'pro',
      trialEndsAt: null,
      createdAt: new Date(),
    });
    account = (await app.stores.accounts.get(id))!;
  }
  const inbox = await app.stores.inboxes.create({
    id: newId('inbox') as InboxId,
    accountId: account.id,
    label: user,
    provider: 'imap',
    email: `${user}@example.test`,
    imapHost: '127.0.0.1',
    imapPort: dovecot.port,
    imapUser: user,
    smtpHost: null,
    smtpPort: null,
    isDemo: false,
    connectionStatus: 'connected',
    createdAt: new Date(),
  });
  // Through the same sealed vault the capture form writes to.
  const vault = (
    app.services.tools.inboxes as unknown as {
      deps: { vault: { put: (i: InboxId, c: unknown, d: Date) => Promise<void> } };
    }
  ).deps.vault;
  await vault.put(inbox.id, { kind: 'password', username: user, password: PASSWORD }, new Date());
  return inbox;
}

/** The baseline: connect, log in, select and FETCH the same fields for the same UIDs with imapflow, nothing else. */
async function rawFetch(dovecot: Dovecot, user: string, window: number): Promise<number> {
  const t = performance.now();
  const c = await imapClient(dovecot, user, PASSWORD);
  const lock = await c.getMailboxLock('INBOX');
  let n = 0;
  try {
    const status = await c.status('INBOX', { uidNext: true });
    const uidNext = status === false ? 1 : (status.uidNext ?? 1);
    const from = Math.max(1, uidNext - window);
    for await (const m of c.fetch(`${String(from)}:*`, SUMMARY_QUERY, { uid: true })) if (m.uid > 0) n++;
  } finally {
    lock.release();
    await c.logout();
  }
  if (n !== window) throw new Error(`raw fetch saw ${String(n)} messages, expected ${String(window)}`);
  return performance.now() - t;
}

export async function syncBench(opts: {
  mailbox: number;
  windows: readonly number[];
  idleInboxes: number;
}): Promise<SyncResults> {
  const dovecot = await startDovecot({ users: { bench: PASSWORD } });
  try {
    await seedMaildir({
      maildir: dovecot.maildirOf('bench'),
      messages: generateMessages(opts.mailbox, { seed: 100, intervalMs: 60_000 }),
    });
    await rawFetch(dovecot, 'bench', 100); // warm Dovecot's index for both sides
    const rows: SyncRow[] = [];
    for (const window of opts.windows) {
      const app = await appWith(window);
      try {
        const raws: number[] = [];
        const ours: number[] = [];
        const incr: number[] = [];
        for (let run = 0; run < SYNC_RUNS; run++) {
          // A full GC before each timed part, so neither side pays for the other's garbage (without it single
          // runs vary by ±30%).
          collectGarbage();
          raws.push(await rawFetch(dovecot, 'bench', window));
          const inbox = await connectedInbox(app, dovecot, 'bench');
          collectGarbage();
          let t = performance.now();
          const r = await app.services.tools.sync.sync(inbox);
          ours.push(performance.now() - t);
          if (!r.ok || r.folders[0]?.added !== window) throw new Error(`sync failed: ${JSON.stringify(r)}`);
          t = performance.now();
          await app.services.tools.sync.sync(inbox);
          incr.push(performance.now() - t);
        }
        rows.push({
          window,
          oursMs: median(ours),
          rawMs: median(raws),
          ratio: median(ours.map((o, i) => o / (raws[i] ?? o))),
          incrementalMs: median(incr),
        });
      } finally {
        await app.close();
      }
    }

    // The whole mailbox indexed (issue 21, P2): what an agent gets by calling load_older_messages to the end.
    let whole: SyncResults['whole'];
    {
      collectGarbage();
      const rawMs = await rawFetch(dovecot, 'bench', opts.mailbox);
      const app = await appWith(1000);
      try {
        const inbox = await connectedInbox(app, dovecot, 'bench');
        collectGarbage();
        const t = performance.now();
        const first = await app.services.tools.sync.sync(inbox);
        if (!first.ok) throw new Error(`sync failed: ${JSON.stringify(first)}`);
        let indexed = first.folders[0]?.added ?? 0;
        let calls = 0;
        for (;;) {
          // As the tool does: the inbox with its folders read afresh, then the page of older mail.
          const place = await app.services.tools.inboxes.usableWithFolders(
            wholeAccount(inbox.accountId),
            inbox.id,
          );
          if (!place.ok) throw new Error(`inbox not usable: ${place.error.code}`);
          const r = await app.services.tools.read.loadOlder(place.value, 'inbox', 200);
          calls++;
          if (!r.ok) throw new Error(`load_older_messages failed: ${JSON.stringify(r.error)}`);
          indexed += r.value.loaded.length;
          if (r.value.loaded.length === 0 || !r.value.moreAvailable) break;
        }
        const oursMs = performance.now() - t;
        if (indexed !== opts.mailbox)
          throw new Error(`indexed ${String(indexed)} of ${String(opts.mailbox)} messages`);
        whole = {
          oursPerSecond: opts.mailbox / (oursMs / 1000),
          rawPerSecond: opts.mailbox / (rawMs / 1000),
          calls,
        };
      } finally {
        await app.close();
      }
    }

    // New mail to visible in the index (what list_messages reads), through IDLE and the background scheduler.
    const app = await appWith(1000);
    const newMailMs: number[] = [];
    try {
      const inbox = await connectedInbox(app, dovecot, 'bench');
      await app.services.tools.sync.sync(inbox);
      app.startBackground();
      await new Promise((r) => setTimeout(r, 2000));
      const c = await imapClient(dovecot, 'bench', PASSWORD);
      for (const [i, m] of generateMessages(5, { seed: 7, startDate: new Date() }).entries()) {
        const subject = `bench-new-mail-${String(i)}-${newId('x')}`;
        const raw = Buffer.from(
          m.raw.toString('latin1').replace(/^Subject: .*$/m, `Subject: ${subject}`),
          'latin1',
        );
        const t = performance.now();
        await c.append('INBOX', raw, []);
        for (;;) {
          const page = await app.stores.messages.list(inbox.id, { text: subject, limit: 1, offset: 0 });
          if (page.total > 0) break;
          if (performance.now() - t > 20_000) throw new Error('new mail not visible within 20 s');
          await new Promise((r) => setTimeout(r, 20));
        }
        newMailMs.push(performance.now() - t);
      }
      await c.logout();
    } finally {
      await app.close();
    }

    // Memory of connected, idle inboxes (each watched by IDLE).
    const idleApp = await appWith(50);
    try {
      for (let i = 0; i < opts.idleInboxes; i++) await dovecot.addUser(`idle${String(i)}`, PASSWORD);
      await new Promise((r) => setTimeout(r, 1200));
      const inboxes: Inbox[] = [];
      for (let i = 0; i < opts.idleInboxes; i++)
        inboxes.push(await connectedInbox(idleApp, dovecot, `idle${String(i)}`));
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      const before = process.memoryUsage();
      // Watchers are taken by the scheduler's reconcile pass (each node its share; here the only node).
      await idleApp.services.scheduler.reconcile();
      await new Promise((r) => setTimeout(r, 5000));
      const watching = await idleApp.services.scheduler.watching();
      if (watching !== opts.idleInboxes)
        throw new Error(`only ${String(watching)} of ${String(opts.idleInboxes)} inboxes are watched`);
      // Measured at rest: the logins kept after each inbox's first sync log out after IMAP_REUSE_SECONDS (20 s),
      // and until then an inbox holds two connections. Read earlier, the heap counted those kept logins too.
      const connectionsOfIdle = async () => {
        const who = await dovecot.connections();
        let n = 0;
        for (let i = 0; i < opts.idleInboxes; i++) n += who.get(`idle${String(i)}`) ?? 0;
        return n;
      };
      const kept = await connectionsOfIdle();
      gc?.();
      const withKept = process.memoryUsage();
      let connections = kept;
      for (let waited = 0; connections > opts.idleInboxes && waited < 60_000; waited += 1000) {
        await new Promise((r) => setTimeout(r, 1000));
        connections = await connectionsOfIdle();
      }
      gc?.();
      const after = process.memoryUsage();
      const perInbox = (bytes: number) => Math.round(bytes / 1024 / opts.idleInboxes);
      return {
        mailbox: opts.mailbox,
        rows,
        whole,
        newMailMs,
        idle: {
          inboxes: opts.idleInboxes,
          heapPerInboxKb: perInbox(after.heapUsed - before.heapUsed),
          // Heap plus buffers held outside it (socket buffers): what an idle inbox really costs in this process.
          rssPerInboxKb: perInbox(after.heapUsed + after.external - before.heapUsed - before.external),
          connectionsPerInbox: connections / opts.idleInboxes,
          heapWithKeptLoginsKb: perInbox(withKept.heapUsed - before.heapUsed),
          keptConnectionsPerInbox: kept / opts.idleInboxes,
        },
      };
    } finally {
      await idleApp.close();
    }
  } finally {
    await dovecot.stop();
  }
}
