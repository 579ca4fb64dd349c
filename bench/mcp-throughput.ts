import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readConfiguration } from '../src/config/index.ts';
import { createApp, type App } from '../src/app.ts';
import { generateMessages, seedMaildir, startDovecot } from '../test/rig/index.ts';
import { connectedInbox, PASSWORD } from './sync.ts';
import { silentLogger } from '../src/lib/logger.ts';
import { freePort } from '../test/rig/free-port.ts';
import { tempDir } from '../test/support/temp-dir.ts';
import { httpToolCaller } from '../test/support/tool-caller.ts';
import { createKeyViaPage, setUpOwner } from '../test/support/web-client.ts';
import { compare, type Comparison } from './load.ts';
import { startProcess, stopProcess } from './processes.ts';

const ROOT = join(import.meta.dirname, '..');
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

export interface ThroughputRow extends Comparison {
  readonly name: string;
}

/** One tool call to load, in both protocol eras. */
export interface ToolCase {
  readonly label: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

/** The request of one tool call: the 2026-07-28 era (plain JSON, routing headers) or 2025-11-25 (SSE). */
export function toolRequest(
  era: '2026-07-28' | '2025-11-25',
  tool: string,
  args: Record<string, unknown>,
): { headers: Record<string, string>; body: string } {
  const params =
    era === '2026-07-28' ? { name: tool, arguments: args, _meta: META } : { name: tool, arguments: args };
  const headers: Record<string, string> =
    era === '2026-07-28'
      ? { 'mcp-protocol-version': era, 'mcp-method': 'tools/call', 'mcp-name': tool }
      : { 'mcp-protocol-version': era };
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) };
}

/** A running service process on SQLite with an owner, an API key and the demo inbox synced. */
export interface BenchService {
  readonly url: string;
  readonly key: string;
  readonly dataDir: string;
  call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export async function startBenchService(
  env: Record<string, string> = {},
  prepare?: (app: App) => Promise<void>,
): Promise<BenchService> {
  const dataDir = tempDir('bench-');
  const { config, secrets } = readConfiguration({ DATA_DIR: dataDir, ...env }, ROOT);
  const setup = await createApp(config, secrets, { log: silentLogger });
  const web = await setUpOwner(setup);
  await setup.services.accounts.setPlan('owner@example.test', 'pro');
  const key = await createKeyViaPage(web);
  await prepare?.(setup);
  await setup.close();
  const port = await freePort();
  const service = await startProcess(
    [join(ROOT, 'bin', 'inbox-triage.js'), 'serve'],
    {
      DATA_DIR: dataDir,
      PORT: String(port),
      RATE_LIMIT_MCP_PER_MINUTE: '100000000',
      LOG_LEVEL: 'info',
      ...env,
    },
    'listening',
  );
  const url = `http://127.0.0.1:${String(port)}/mcp`;
  const tools = httpToolCaller(`http://127.0.0.1:${String(port)}`, key);
  return {
    url,
    key,
    dataDir,
    call: async (tool, args) => (await tools(tool, args)).raw,
    stop: () => stopProcess(service),
  };
}

const headersFor = (key: string, extra: Record<string, string>) => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...extra,
});

/** Loads each case on the service and on a bare node:http process answering the very bytes the service gave. */
export async function compareCases(
  svc: BenchService,
  cases: readonly ToolCase[],
  opts: { connections: number; seconds: number; rounds: number },
): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  for (const c of cases)
    for (const era of ['2026-07-28', '2025-11-25'] as const) {
      const r = toolRequest(era, c.tool, c.args);
      const headers = headersFor(svc.key, r.headers);
      const sample = await fetch(svc.url, { method: 'POST', headers, body: r.body });
      const bytes = Buffer.from(await sample.arrayBuffer());
      if (sample.status !== 200 || bytes.includes('"isError":true'))
        throw new Error(`service answered ${String(sample.status)}: ${bytes.toString().slice(0, 300)}`);
      const bytesPath = join(svc.dataDir, 'response.bin');
      writeFileSync(bytesPath, bytes);
      const barePort = await freePort();
      const bare = await startProcess(
        [
          join(ROOT, 'bench', 'bare-server.ts'),
          String(barePort),
          bytesPath,
          sample.headers.get('content-type') ?? 'application/json',
        ],
        {},
      );
      try {
        const bareUrl = `http://127.0.0.1:${String(barePort)}/mcp`;
        rows.push({
          name: `${c.label}, ${era} (${era === '2026-07-28' ? 'JSON' : 'SSE'}), ${String(bytes.length)} B`,
          ...(await compare(
            { url: svc.url, headers, body: r.body },
            { url: bareUrl, headers, body: r.body },
            opts,
          )),
        });
      } finally {
        await stopProcess(bare);
      }
    }
  return rows;
}

/** The 1,000-message window of an IMAP inbox (Dovecot on loopback) the read path is measured on. */
const IMAP_WINDOW = 1000;

/**
 * Authenticated tool calls against the real service process (SQLite, request logging on, an audit row per call):
 * `list_inboxes` (the cheapest call) and the read path agents use most — `list_messages` with 50 and with 5
 * previews and `get_message` — on the demo inbox and on an IMAP inbox with a 1,000-message window at Dovecot.
 */
export async function mcpThroughput(opts: {
  connections: number;
  seconds: number;
  rounds: number;
  only?: string | undefined;
}): Promise<ThroughputRow[]> {
  const dovecot = await startDovecot({ users: { reader: PASSWORD } });
  try {
    await seedMaildir({
      maildir: dovecot.maildirOf('reader'),
      messages: generateMessages(IMAP_WINDOW, { seed: 7, intervalMs: 60_000 }),
    });
    let imapInboxId = '';
    const svc = await startBenchService(
      { SYNC_WINDOW: String(IMAP_WINDOW), IMAP_INSECURE_HOSTS: '127.0.0.1' },
      async (app) => {
        imapInboxId = (await connectedInbox(app, dovecot, 'reader', 'owner@example.test')).id;
      },
    );
    try {
      const inboxes = (await svc.call('list_inboxes', {}))['inboxes'] as { id: string; isDemo?: boolean }[];
      const demoId = inboxes.find((i) => i.isDemo === true)?.id ?? '';
      const cases: ToolCase[] = [{ label: 'list_inboxes', tool: 'list_inboxes', args: {} }];
      for (const [where, inboxId] of [
        ['demo', demoId],
        [`IMAP, ${String(IMAP_WINDOW)}-message window`, imapInboxId],
      ] as const) {
        await svc.call('sync_inbox', { inboxId });
        const first = await svc.call('list_messages', { inboxId, limit: 1 });
        const messageId = (first['messages'] as { messageId: string }[])[0]?.messageId ?? '';
        if (where !== 'demo' && first['total'] !== IMAP_WINDOW)
          throw new Error(`the IMAP inbox indexed ${String(first['total'])} messages`);
        cases.push(
          { label: `list_messages limit 50 (${where})`, tool: 'list_messages', args: { inboxId, limit: 50 } },
          { label: `list_messages limit 5 (${where})`, tool: 'list_messages', args: { inboxId, limit: 5 } },
          { label: `get_message (${where})`, tool: 'get_message', args: { inboxId, messageId } },
        );
      }
      return await compareCases(
        svc,
        cases.filter((c) => opts.only === undefined || c.label.startsWith(opts.only)),
        opts,
      );
    } finally {
      await svc.stop();
    }
  } finally {
    await dovecot.stop();
  }
}
