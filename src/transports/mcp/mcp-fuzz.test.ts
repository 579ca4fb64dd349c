import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import { call, createTestApp, NO_RATE_LIMITS } from '../../../test/support/test-app.ts';
import { createKeyViaPage, setUpOwner } from '../../../test/support/web-client.ts';

// Random JSON-RPC-ish bodies, wrong types, huge and deeply nested inputs: the endpoint must always answer with
// a JSON-RPC error, a tool error or a result — never a 500, never a hang.
describe('/mcp under random input', () => {
  let app: App;
  let key: string;
  beforeAll(async () => {
    app = await createTestApp({
      config: { rateLimits: NO_RATE_LIMITS },
    });
    key = await createKeyViaPage(await setUpOwner(app));
  });
  afterAll(async () => {
    await app.close();
  });

  const deep = (depth: number): unknown => (depth === 0 ? 'x' : { a: deep(depth - 1) });
  const anyJson = fc.jsonValue({ maxDepth: 4 });
  const params = fc.oneof(
    anyJson,
    fc.record(
      {
        name: fc.oneof(fc.constant('list_inboxes'), fc.string()),
        arguments: fc.oneof(anyJson, fc.constant(deep(200))),
      },
      { requiredKeys: [] },
    ),
  );
  const message = fc.oneof(
    fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), anyJson),
        id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), anyJson),
        method: fc.oneof(
          fc.constantFrom(
            'tools/call',
            'tools/list',
            'initialize',
            'server/discover',
            'ping',
            'resources/list',
            'notifications/initialized',
          ),
          fc.string(),
        ),
        params,
      },
      { requiredKeys: [] },
    ),
    fc.array(anyJson, { maxLength: 3 }),
    anyJson,
  );
  const body = fc.oneof(
    message.map((m) => JSON.stringify(m)),
    fc.string({ maxLength: 200 }),
    fc.constant(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_inboxes","arguments":' +
        '['.repeat(5000) +
        ']'.repeat(5000) +
        '}}',
    ),
    fc.constant(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_inboxes', arguments: { s: 'x'.repeat(900_000) } },
      }),
    ),
  );
  const headers = fc.record(
    {
      'mcp-protocol-version': fc.constantFrom('2026-07-28', '2025-11-25', 'garbage'),
      'mcp-method': fc.constantFrom('tools/call', 'tools/list', 'x'),
      'content-type': fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8'),
      accept: fc.constantFrom('application/json, text/event-stream', 'application/json', '*/*'),
    },
    { requiredKeys: [] },
  );

  it('never answers 500 and always answers', async () => {
    await fc.assert(
      fc.asyncProperty(body, headers, async (b, h) => {
        const res = await Promise.race([
          call(app, '/mcp', { method: 'POST', headers: { authorization: `Bearer ${key}`, ...h }, body: b }),
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error('no answer within 5 s')), 5000),
          ),
        ]);
        expect(res.status).toBeLessThan(500);
        const text = await res.text();
        expect(text).not.toMatch(/at .+\.ts:\d+/); // no stack traces
        if (res.status >= 400 && text !== '') expect(() => JSON.parse(text) as unknown).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });
});
