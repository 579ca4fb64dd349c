import { join } from 'node:path';
import pg from 'pg';
import { createApp } from '../src/app.ts';
import { readConfiguration } from '../src/config/index.ts';
import { silentLogger } from '../src/lib/logger.ts';
import { freePort } from '../test/rig/free-port.ts';
import { generateMessages, seedMaildir, startDovecot } from '../test/rig/index.ts';
import { startPgCluster } from '../test/rig/pg-cluster.ts';
import { tempDir } from '../test/support/temp-dir.ts';
import { TEST_KEY } from '../test/support/test-app.ts';
import { toolCaller } from '../test/support/tool-caller.ts';
import { createKeyViaPage, setUpOwner } from '../test/support/web-client.ts';
import { load, medianOf, type LoadResult } from './load.ts';
import { startProcess, stopProcess } from './processes.ts';
import { connectedInbox, PASSWORD } from './sync.ts';

const ROOT = join(import.meta.dirname, '..');

export interface ClusterBench {
  /**
   * Statements sent to PostgreSQL per MCP tool call (BEGIN/COMMIT counted), by tool: calls one after another, and
   * 32 calls at once (where calls share what is grouped: the audit rows' group commit).
   */
  readonly roundTrips: readonly {
    readonly tool: string;
    readonly perCall: number;
    readonly atOnce: number;
  }[];
  readonly one: LoadResult;
  readonly three: LoadResult;
  /** Three nodes / one node, median of the per-round ratios (and each round's). */
  readonly ratio: number;
  readonly roundRatios: readonly number[];
}

/**
 * Several instances on one PostgreSQL (decision 0024): how many statements an MCP call costs on PostgreSQL (counted
 * at the driver, in-process, credential lookup and audit row included), and the same `list_messages` call against
 * one service process versus spread over three on the same database, alternating rounds. The calls are counted on
 * the demo inbox, whose mailbox is itself kept in the database (its changes are statements too), and on an IMAP
 * inbox at Dovecot, where the mailbox is elsewhere, as in a deployment.
 */
export async function clusterBench(opts: { seconds: number; rounds: number; connections: number }) {
  const cluster = await startPgCluster();
  const dovecot = await startDovecot({ users: { reader: PASSWORD } });
  try {
    await seedMaildir({
      maildir: dovecot.maildirOf('reader'),
      messages: generateMessages(200, { seed: 11, intervalMs: 60_000 }),
    });
    const url = await cluster.createDatabase();
    const env = { DATABASE_URL: url, ENCRYPTION_KEY: TEST_KEY.toString('base64') };
    const { config, secrets } = readConfiguration(
      { ...env, DATA_DIR: tempDir('bench-pg-'), IMAP_INSECURE_HOSTS: '127.0.0.1' },
      ROOT,
    );

    // Statements per call, counted at the pg driver.
    let statements = 0;
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      statements++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const app = await createApp(config, secrets, { log: silentLogger });
    const web = await setUpOwner(app);
    await app.services.accounts.setPlan('owner@example.test', 'pro');
    const key = await createKeyViaPage(web);
    const call = toolCaller(app, key);
    const inboxId = ((await call('list_inboxes')).body['inboxes'] as { id: string }[])[0]!.id;
    const imapInboxId = (await connectedInbox(app, dovecot, 'reader', 'owner@example.test')).id;
    const SERIAL = 20;
    const AT_ONCE = 32;
    const idsOf = async (inbox: string) => {
      await call('sync_inbox', { inboxId: inbox });
      const ids = (
        (await call('list_messages', { inboxId: inbox, limit: 100 })).body['messages'] as {
          messageId: string;
        }[]
      ).map((m) => m.messageId);
      // The archives below take the first 1 + SERIAL + AT_ONCE; get_message reads the last, never archived.
      if (ids.length <= 1 + SERIAL + AT_ONCE)
        throw new Error(`the inbox lists only ${String(ids.length)} messages`);
      return ids;
    };
    const ids = await idsOf(inboxId);
    const imapIds = await idsOf(imapInboxId);
    // Calls i = 1..SERIAL one after another, then i = SERIAL + 1..SERIAL + AT_ONCE all at once; call 0 warms up
    // (statement caches, the key's first lookup).
    const perCall = async (tool: string, args: (i: number) => Record<string, unknown>) => {
      await call(tool, args(0));
      statements = 0;
      for (let i = 1; i <= SERIAL; i++) await call(tool, args(i));
      const serial = statements / SERIAL;
      statements = 0;
      await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => call(tool, args(SERIAL + 1 + i))));
      return { perCall: serial, atOnce: statements / AT_ONCE };
    };
    const onInbox = async (where: string, inbox: string, its: string[]) => [
      {
        tool: `list_messages (limit 50), ${where}`,
        ...(await perCall('list_messages', () => ({ inboxId: inbox, limit: 50 }))),
      },
      {
        tool: `act_on_messages (archive one), ${where}`,
        ...(await perCall('act_on_messages', (i) => ({
          action: 'archive',
          items: [{ inboxId: inbox, messageId: its[i] }],
        }))),
      },
      {
        tool: `get_message (its content cached), ${where}`,
        ...(await perCall('get_message', () => ({ inboxId: inbox, messageId: its.at(-1) }))),
      },
    ];
    const roundTrips = [
      ...(await onInbox('demo inbox', inboxId, ids)),
      ...(await onInbox('IMAP inbox', imapInboxId, imapIds)),
      { tool: 'list_inboxes', ...(await perCall('list_inboxes', () => ({}))) },
    ];
    pg.Client.prototype.query = query;
    await app.close();

    // One node against three.
    const ports = await Promise.all([0, 1, 2].map(() => freePort()));
    const nodes = await Promise.all(
      ports.map((port) =>
        startProcess(
          [join(ROOT, 'bin', 'inbox-triage.js'), 'serve'],
          {
            ...env,
            DATA_DIR: tempDir('bench-node-'),
            PORT: String(port),
            RATE_LIMIT_MCP_PER_MINUTE: '100000000',
            SYNC_INTERVAL_SECONDS: '3600',
            IMAP_INSECURE_HOSTS: '127.0.0.1',
            LOG_LEVEL: 'info',
          },
          'listening',
        ),
      ),
    );
    try {
      const target = (port: number) => ({
        url: `http://127.0.0.1:${String(port)}/mcp`,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_messages', arguments: { inboxId, limit: 5 } },
        }),
      });
      const sum = (rs: LoadResult[]): LoadResult => ({
        requestsPerSecond: rs.reduce((n, r) => n + r.requestsPerSecond, 0),
        p50Ms: Math.max(...rs.map((r) => r.p50Ms)),
        p99Ms: Math.max(...rs.map((r) => r.p99Ms)),
        non2xx: rs.reduce((n, r) => n + r.non2xx, 0),
        errors: rs.reduce((n, r) => n + r.errors, 0),
      });
      const oneNode = () => load(target(ports[0]!), { connections: opts.connections, seconds: opts.seconds });
      const threeNodes = async () =>
        sum(
          await Promise.all(
            ports.map((p) =>
              load(target(p), { connections: Math.ceil(opts.connections / 3), seconds: opts.seconds }),
            ),
          ),
        );
      await oneNode();
      await threeNodes();
      const ones: LoadResult[] = [];
      const threes: LoadResult[] = [];
      for (let i = 0; i < opts.rounds; i++) {
        ones.push(await oneNode());
        threes.push(await threeNodes());
      }
      const median = (xs: LoadResult[]) =>
        [...xs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(xs.length / 2)]!;
      const roundRatios = ones.map((o, i) => threes[i]!.requestsPerSecond / o.requestsPerSecond);
      return {
        roundTrips,
        one: median(ones),
        three: median(threes),
        ratio: medianOf(roundRatios),
        roundRatios,
      } satisfies ClusterBench;
    } finally {
      for (const n of nodes) await stopProcess(n);
    }
  } finally {
    await cluster.stop();
    await dovecot.stop();
  }
}
