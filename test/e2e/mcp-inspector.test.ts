import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpTestServer, type McpTestServer } from '../support/mcp-test-server.ts';
import { tempDir } from '../support/temp-dir.ts';

const root = join(import.meta.dirname, '..', '..');
const INSPECTOR = join(
  root,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'launcher',
  'build',
  'index.js',
);
const run = promisify(execFile);

describe('MCP Inspector CLI against /mcp with an API key', () => {
  let server: McpTestServer;
  beforeAll(async () => {
    server = await startMcpTestServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  const inspector = (...args: string[]) =>
    run(
      process.execPath,
      [
        INSPECTOR,
        '--cli',
        server.url,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${server.key}`,
        ...args,
      ],
      {
        env: { PATH: process.env['PATH'] ?? '', HOME: tempDir('inspector-') }, // the CLI writes under $HOME
        timeout: 60_000,
      },
    );

  it('lists the tools', async () => {
    const { stdout } = await inspector('--method', 'tools/list');
    const tools = (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(tools).toContain('list_inboxes');
  });

  it('calls list_inboxes', async () => {
    const { stdout } = await inspector('--method', 'tools/call', '--tool-name', 'list_inboxes');
    const result = JSON.parse(stdout) as {
      content: { text: string }[];
      structuredContent: { inboxes: unknown[] };
    };
    expect(result.structuredContent.inboxes).toEqual([
      expect.objectContaining({ label: 'Demo inbox', isDemo: true }),
    ]);
    expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
  });

  it('without the key it is refused', async () => {
    const r = await run(
      process.execPath,
      [INSPECTOR, '--cli', server.url, '--transport', 'http', '--method', 'tools/list', '--stored-auth-only'],
      {
        env: { PATH: process.env['PATH'] ?? '', HOME: tempDir('inspector-') },
        timeout: 60_000,
      },
    ).catch((e: unknown) => e as { code: number; stdout: string; stderr: string });
    expect('code' in r && r.code !== 0).toBe(true);
  });
});
