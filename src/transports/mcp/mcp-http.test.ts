import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import type { Logger } from '../../lib/logger.ts';
import { freePort } from '../../../test/rig/free-port.ts';
import { createTestApp, TEST_RATE_LIMITS } from '../../../test/support/test-app.ts';
import { createKeyViaPage, invitedAccount, setUpOwner } from '../../../test/support/web-client.ts';
import { listen, type RunningServer } from '../http/serve.ts';
import { MAX_MCP_BODY_BYTES } from './sdk-server.ts';

// /mcp has one implementation (mcp-http.ts) and two thin adapters: node:http (production, over a socket) and the
// web Request of App.fetch (in-process tests). Each case goes both ways and must get the same answer; the frame's
// rules (request ids, one access line, 413 for a body over the limit however it is sent) are checked on the socket.
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

/** A JSON-RPC batch of `n` list_inboxes calls, under this revision. */
function batchOf(n: number, revision: string): Case {
  return {
    headers: { 'mcp-protocol-version': revision },
    body: Array.from({ length: n }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'list_inboxes', arguments: {} },
    })),
  };
}

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
  ['GET', { method: 'GET' }],
  ['DELETE', { method: 'DELETE' }],
  ['a batch in 2025-03-26 (SDK)', batchOf(3, '2025-03-26')],
  ['a batch in 2025-06-18, which has none (refused)', batchOf(2, '2025-06-18')],
  ['a batch of 21 in 2025-03-26 (refused)', batchOf(21, '2025-03-26')],
];

describe('/mcp: one implementation, reached the same way over a socket and in-process', () => {
  let app: App;
  let key: string;
  let withLane: RunningServer;
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
  });
  afterAll(async () => {
    await withLane.close(1000);
    await app.close();
  });

  const request = (base: string, c: Case) => {
    const auth = c.auth === 'none' ? {} : { authorization: `Bearer ${c.auth === 'bad' ? 'itk_wrong' : key}` };
    const body =
      c.body === undefined ? undefined : typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
    return new Request(`${base}/mcp`, {
      method: c.method ?? 'POST',
      headers: { ...BASE, ...auth, ...c.headers },
      ...(body !== undefined && { body }),
    });
  };
  const overSocket = (server: RunningServer, c: Case) =>
    read(fetch(request(`http://127.0.0.1:${String(server.port)}`, c)));
  const inProcess = (c: Case) => read(Promise.resolve(app.fetch(request(app.config.baseUrl, c))));
  const read = async (pending: Promise<Response>) => {
    const res = await pending;
    const text = await res.text();
    const headers = Object.fromEntries(COMPARED_HEADERS.map((h) => [h, res.headers.get(h)]));
    return { status: res.status, headers, text, requestId: res.headers.get('x-request-id') };
  };

  it.each(CASES)('%s', async (_name, c) => {
    const viaSocket = await overSocket(withLane, c);
    const viaFetch = await inProcess(c);
    expect(viaSocket.status).toBe(viaFetch.status);
    expect(viaSocket.headers).toEqual(viaFetch.headers);
    expect(viaSocket.text).toBe(viaFetch.text);
    expect(viaSocket.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(viaFetch.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a batch is one request per message: answered for each where the revision has batches, refused elsewhere (decision 0113)', async () => {
    const answered = await inProcess(batchOf(3, '2025-03-26'));
    expect(answered.status).toBe(200);
    expect(answered.text.match(/\\"inboxes\\":/g)).toHaveLength(3);
    for (const [c, words] of [
      [
        batchOf(2, '2025-06-18'),
        'Invalid Request: MCP 2025-06-18 has no batches; send one JSON-RPC message per request.',
      ],
      [
        batchOf(2, '2026-07-28'),
        'Invalid Request: MCP 2026-07-28 has no batches; send one JSON-RPC message per request.',
      ],
      [batchOf(21, '2025-03-26'), 'Invalid Request: a batch holds at most 20 messages; this one holds 21.'],
    ] as const) {
      const refused = await inProcess(c);
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.text)).toEqual({
        jsonrpc: '2.0',
        error: { code: -32600, message: words },
        id: null,
      });
    }
  });

  it('answers the contract’s statuses: 405 for GET, 413 over the limit, 401 without a token', async () => {
    expect((await inProcess({ method: 'GET' })).status).toBe(405);
    expect((await overSocket(withLane, { body: 'x'.repeat(MAX_MCP_BODY_BYTES + 1) })).status).toBe(413);
    expect((await overSocket(withLane, { ...modernCall('list_inboxes'), auth: 'none' })).status).toBe(401);
  });

  it('echoes a plain X-Request-Id and replaces an unsafe one, as every other route does', async () => {
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
    // In-process too: the frame is the same code.
    lines.length = 0;
    await inProcess(modernCall('list_inboxes'));
    expect(lines.filter((l) => (l.obj as { path?: string }).path === '/mcp')).toHaveLength(1);
    lines.length = 0;
    const res = await overSocket(withLane, modernCall('list_inboxes'));
    expect(res.status).toBe(200);
    const access = lines.filter((l) => (l.obj as { path?: string }).path === '/mcp');
    expect(access).toHaveLength(1);
    expect(access[0]!.obj).toMatchObject({ reqId: res.requestId, method: 'POST', status: 200 });
    expect(JSON.stringify(lines)).not.toContain(key);
  });
});

describe('/mcp: a batch spends one request per message from the rate budget (decision 0113)', () => {
  let app: App;

  beforeAll(async () => {
    app = await createTestApp({
      config: {
        rateLimits: { ...TEST_RATE_LIMITS, mcpPerMinute: 5 },
      },
    });
  });
  afterAll(async () => {
    await app.close();
  });

  const post = (key: string, c: Case) =>
    app.fetch(
      new Request(`${app.config.baseUrl}/mcp`, {
        method: 'POST',
        headers: { ...BASE, authorization: `Bearer ${key}`, ...c.headers },
        body: JSON.stringify(c.body),
      }),
    );

  it('five calls in one batch use the five a minute; a batch of four with three left is refused whole', async () => {
    const first = await createKeyViaPage(await setUpOwner(app));
    expect((await post(first, batchOf(5, '2025-03-26'))).status).toBe(200);
    const after = await post(first, batchOf(1, '2025-03-26'));
    expect(after.status).toBe(429);
    const second = await createKeyViaPage(await invitedAccount(app, 'second@example.test'));
    expect((await post(second, batchOf(2, '2025-03-26'))).status).toBe(200);
    const four = await post(second, batchOf(4, '2025-03-26'));
    expect(four.status).toBe(429);
    expect(four.headers.get('retry-after')).not.toBeNull();
    // Of the four, only the request that carried them was spent: two are left of the five.
    expect((await post(second, batchOf(2, '2025-03-26'))).status).toBe(200);
    expect((await post(second, batchOf(1, '2025-03-26'))).status).toBe(429);
  });

  it('a batch bigger than the whole minute is refused as one to send smaller, not to retry later (decision 0153)', async () => {
    const key = await createKeyViaPage(await invitedAccount(app, 'third@example.test'));
    const six = await post(key, batchOf(6, '2025-03-26'));
    expect(six.status).toBe(400);
    expect(six.headers.get('retry-after')).toBeNull();
    expect(await six.json()).toMatchObject({
      error: { code: -32600, message: expect.stringContaining('send at most 5 at once') },
    });
  });
});
