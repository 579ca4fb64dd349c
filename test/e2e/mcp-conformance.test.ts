import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpTestServer, type McpTestServer } from '../support/mcp-test-server.ts';

const root = join(import.meta.dirname, '..', '..');
const CONFORMANCE = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const BASELINE = join(root, 'test', 'conformance', 'expected-failures.yml');
const run = promisify(execFile);
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, ''); // the suite colours its output even with NO_COLOR

describe('MCP conformance suite (server scenarios)', () => {
  let server: McpTestServer;
  beforeAll(async () => {
    server = await startMcpTestServer({ anonymous: true });
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each(['2025-11-25', '2026-07-28'])(
    'passes every scenario of %s outside the checked-in baseline',
    async (version) => {
      let output: string;
      try {
        const r = await run(
          process.execPath,
          [
            CONFORMANCE,
            'server',
            '--url',
            server.url,
            '--suite',
            'all',
            '--spec-version',
            version,
            '--expected-failures',
            BASELINE,
          ],
          { cwd: root, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 },
        );
        output = plain(r.stdout + r.stderr);
      } catch (e) {
        const x = e as { stdout?: string; stderr?: string };
        throw new Error(`conformance failed:\n${plain((x.stdout ?? '') + (x.stderr ?? '')).slice(-4000)}`);
      }
      const mustPass =
        version === '2026-07-28'
          ? [
              'tools-list',
              'resources-list',
              'sep-2164-resource-not-found',
              'http-header-validation',
              'dns-rebinding-protection',
            ]
          : ['server-initialize', 'tools-list', 'resources-list', 'ping', 'dns-rebinding-protection'];
      for (const scenario of mustPass)
        expect(output).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
      if (version === '2026-07-28') expect(output).toMatch(/server-stateless: 24 passed, 4 failed/);
    },
    300_000,
  );
});
