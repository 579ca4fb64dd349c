import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import type { Logger } from '../../lib/logger.ts';
import { freePort } from '../../../test/rig/free-port.ts';
import { createTestApp } from '../../../test/support/test-app.ts';
import { createKeyViaPage, setUpOwner } from '../../../test/support/web-client.ts';
import { listen, type RunningServer } from '../http/serve.ts';
import { MAX_MCP_BODY_BYTES } from './sdk-server.ts';

// The raw node:http lane for POST /mcp must answer exactly what the Hono route answers. Two servers share one
// app: one with the lane, one without (every request through Hono). Each case goes to both.
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const BASE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const COMPARED_HEADERS = [
  'content-type',
  'cache-control',
  'www-authenticate',
  'retry-after',
  'allow',
  'x-accel-buffering',
];

interface Case {
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  readonly method?: string;
  readonly auth?: 'key' | 'none' | 'bad';
}

const modernCall = (name: string, args: unknown = {}): Case => ({
  headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
  body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: META } },
});

const CASES: [string, Case][] = [
  ['modern tools/call (fast path)', modernCall('list_inboxes')],
  ['modern tools/call, tool error', modernCall('list_inboxes', { x: 1 })],
  ['modern unknown tool (SDK)', modernCall('nope')],
  [
    'legacy tools/call (fast path, SSE)',
    {
      headers: { 'mcp-protocol-version': '2025-11-25' },
      body: { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'list_inboxes' } },
    },
  ],
  [
    'legacy initialize (SDK)',
    {
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      },
    },
  ],
  ['a notification (SDK, 202)', { body: { jsonrpc: '2.0', method: 'notifications/initialized' } }],
  ['not JSON (SDK)', { body: '{"jsonrpc": ' }],
  [
    'header/body version mismatch (SDK)',
    {
      ...modernCall('list_inboxes'),
      headers: {
        'mcp-protocol-version': '2025-11-25',
        'mcp-method': 'tools/call',
        'mcp-name': 'list_inboxes',
      },
    },
  ],
  ['no token', { ...modernCall('list_inboxes'), auth: 'none' }],
  ['a wrong token', { ...modernCall('list_inboxes'), auth: 'bad' }],
  ['a foreign Origin', { ...modernCall('list_inboxes'), headers: { origin: 'https://evil.example' } }],
  [
    'an allowed Origin',
    {
      ...modernCall('list_inboxes'),
      headers: { ...modernCall('list_inboxes').headers, origin: 'http://127.0.0.1:8787' },
    },
  ],
  ['a body over the limit', { body: 'x'.repeat(MAX_MCP_BODY_BYTES + 1) }],
  ['GET (Hono in both)', { method: 'GET' }],
];

describe('the node:http lane for POST /mcp against the Hono route', () => {
  let app: App;
  let key: string;
  let withLane: RunningServer;
  let honoOnly: RunningServer;
  const lines: { level: string; obj: object }[] = [];
  const capture =
    (level: string): ((obj: object) => void) =>
    (obj) => {
      lines.push({ level, obj });
    };
  const accessLog: Logger = {
    error: capture('error'),
    warn: capture('warn'),
    info: capture('info'),
    debug: capture('debug'),
    child: () => accessLog,
  };

  beforeAll(async () => {
    app = await createTestApp({
      config: { mcpAllowedOrigins: ['http://127.0.0.1:8787'] },
      overrides: { log: accessLog },
    });
    key = await createKeyViaPage(await setUpOwner(app));
    withLane = await listen(app.fetch, {
      host: '127.0.0.1',
      port: await freePort(),
      log: accessLog,
      lane: app.lane,
    });
    honoOnly = await listen(app.fetch, { host: '127.0.0.1', port: await freePort(), log: accessLog });
  });
  afterAll(async () => {
    await withLane.close(1000);
    await honoOnly.close(1000);
    await app.close();
  });

  const send = async (server: RunningServer, c: Case) => {
    const auth = c.auth === 'none' ? {} : { authorization: `Bearer ${c.auth === 'bad' ? 'itk_wrong' : key}` };
    const body =
      c.body === undefined ? undefined : typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
    const res = await fetch(`http://127.0.0.1:${String(server.port)}/mcp`, {
      method: c.method ?? 'POST',
      headers: { ...BASE, ...auth, ...c.headers },
      ...(body !== undefined && { body }),
    });
    const text = await res.text();
    const headers = Object.fromEntries(COMPARED_HEADERS.map((h) => [h, res.headers.get(h)]));
    return { status: res.status, headers, text, requestId: res.headers.get('x-request-id') };
  };

  it.each(CASES)('%s', async (_name, c) => {
    const viaLane = await send(withLane, c);
    const viaHono = await send(honoOnly, c);
    expect(viaLane.status).toBe(viaHono.status);
    expect(viaLane.headers).toEqual(viaHono.headers);
    expect(viaLane.text).toBe(viaHono.text);
    expect(viaLane.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(viaHono.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('echoes a plain X-Request-Id and replaces an unsafe one, as Hono does', async () => {
    const plain = await fetch(`http://127.0.0.1:${String(withLane.port)}/mcp`, {
      method: 'POST',
      headers: { ...BASE, 'x-request-id': 'trace-42' },
      body: '{}',
    });
    expect(plain.headers.get('x-request-id')).toBe('trace-42');
    const unsafe = await fetch(`http://127.0.0.1:${String(withLane.port)}/mcp`, {
      method: 'POST',
      headers: { ...BASE, 'x-request-id': 'a b<script>' },
      body: '{}',
    });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a chunked body that grows past the limit without reading it all', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: withLane.port, path: '/mcp', method: 'POST', headers: BASE },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      const chunk = 'x'.repeat(64 * 1024);
      for (let sent = 0; sent <= MAX_MCP_BODY_BYTES; sent += chunk.length) req.write(chunk);
      req.end();
    });
    expect(status).toBe(413);
  });

  it('writes one access line per request with method, path, status and time, and never the token', async () => {
    lines.length = 0;
    const res = await send(withLane, modernCall('list_inboxes'));
    expect(res.status).toBe(200);
    const access = lines.filter((l) => (l.obj as { path?: string }).path === '/mcp');
    expect(access).toHaveLength(1);
    expect(access[0]!.obj).toMatchObject({ reqId: res.requestId, method: 'POST', status: 200 });
    expect(JSON.stringify(lines)).not.toContain(key);
  });
});
