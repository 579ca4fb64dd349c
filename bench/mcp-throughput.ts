import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readConfiguration } from '../src/config/index.ts';
import { createApp } from '../src/app.ts';
import { silentLogger } from '../src/lib/logger.ts';
import { freePort } from '../test/rig/free-port.ts';
import { tempDir } from '../test/support/temp-dir.ts';
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

/**
 * An authenticated `tools/call` of a cheap tool (`list_inboxes`) against the real service process (SQLite,
 * request logging on, audit log written per call), and a bare node:http process answering the same bytes.
 */
export async function mcpThroughput(opts: {
  connections: number;
  seconds: number;
  rounds: number;
}): Promise<ThroughputRow[]> {
  const dataDir = tempDir('bench-');
  const { config, secrets } = readConfiguration({ DATA_DIR: dataDir }, ROOT);
  const setup = await createApp(config, secrets, { log: silentLogger });
  const web = await setUpOwner(setup);
  await setup.services.accounts.setPlan('owner@example.test', 'pro');
  const key = await createKeyViaPage(web);
  await setup.close();

  const port = await freePort();
  const service = await startProcess(
    [join(ROOT, 'bin', 'inbox-triage.js'), 'serve'],
    {
      DATA_DIR: dataDir,
      PORT: String(port),
      RATE_LIMIT_MCP_PER_MINUTE: '100000000',
      LOG_LEVEL: 'info',
    },
    'listening',
  );
  const rows: ThroughputRow[] = [];
  try {
    const cases = [
      {
        name: 'tools/call list_inboxes, 2026-07-28 (JSON)',
        headers: {
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'list_inboxes',
        },
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_inboxes', arguments: {}, _meta: META },
        },
      },
      {
        name: 'tools/call list_inboxes, 2025-11-25 (SSE)',
        headers: { 'mcp-protocol-version': '2025-11-25' },
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_inboxes', arguments: {} },
        },
      },
    ];
    for (const c of cases) {
      const headers = {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...c.headers,
      };
      const body = JSON.stringify(c.body);
      const url = `http://127.0.0.1:${String(port)}/mcp`;
      const sample = await fetch(url, { method: 'POST', headers, body });
      if (sample.status !== 200)
        throw new Error(`service answered ${String(sample.status)}: ${await sample.text()}`);
      const bytesPath = join(dataDir, 'response.bin');
      writeFileSync(bytesPath, Buffer.from(await sample.arrayBuffer()));
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
          name: c.name,
          ...(await compare({ url, headers, body }, { url: bareUrl, headers, body }, opts)),
        });
      } finally {
        await stopProcess(bare);
      }
    }
  } finally {
    await stopProcess(service);
  }
  return rows;
}
