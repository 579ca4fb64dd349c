import type { Arbitrary } from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import { createTestApp } from '../../../test/support/test-app.ts';
import { ownerCaller } from '../../../test/support/owner-caller.ts';
import { fastPath } from './fast-path.ts';
import { createSdkHandler } from './sdk-server.ts';
import { toAuthInfo, type Caller } from './tool-context.ts';
import { ToolRegistry } from './tool-registry.ts';
import { ALL_TOOLS } from './tools/index.ts';

// The fast path must answer exactly what the SDK answers. Each request goes both ways; the JSON-RPC messages
// (and the response framing) must match.
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modern = (method: string, params: Record<string, unknown>, name?: string) => ({
  headers: {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(name !== undefined && { 'mcp-name': name }),
  },
  body: { jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: META } },
});
const legacy = (method: string, params: Record<string, unknown> | undefined, version?: string) => ({
  headers: version === undefined ? {} : { 'mcp-protocol-version': version },
  body: { jsonrpc: '2.0', id: 'abc', method, ...(params !== undefined && { params }) },
});

const CASES: [string, { headers: Record<string, string>; body: unknown }, boolean][] = [
  ['modern tools/list', modern('tools/list', {}), true],
  [
    'modern tools/call ok',
    modern('tools/call', { name: 'list_inboxes', arguments: {} }, 'list_inboxes'),
    true,
  ],
  [
    'modern tools/call without arguments',
    modern('tools/call', { name: 'list_inboxes' }, 'list_inboxes'),
    true,
  ],
  [
    'modern tools/call invalid arguments',
    modern('tools/call', { name: 'list_inboxes', arguments: { x: 1 } }, 'list_inboxes'),
    true,
  ],
  ['legacy tools/list', legacy('tools/list', undefined), true],
  ['legacy tools/list 2025-06-18', legacy('tools/list', {}, '2025-06-18'), true],
  ['legacy tools/call ok', legacy('tools/call', { name: 'list_inboxes', arguments: {} }, '2025-11-25'), true],
  [
    'legacy tools/call invalid arguments',
    legacy('tools/call', { name: 'list_inboxes', arguments: { x: [1] } }),
    true,
  ],
  // Everything below must be declined by the fast path and answered by the SDK alone.
  ['modern unknown tool', modern('tools/call', { name: 'nope', arguments: {} }, 'nope'), false],
  ['modern Mcp-Name mismatch', { ...modern('tools/call', { name: 'list_inboxes' }, 'other') }, false],
  [
    'modern missing Mcp-Method',
    { headers: { 'mcp-protocol-version': '2026-07-28' }, body: modern('tools/list', {}).body },
    false,
  ],
  [
    'modern unsupported version',
    {
      headers: { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
      body: {
        ...modern('tools/list', {}).body,
        params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      },
    },
    false,
  ],
  ['legacy unknown tool', legacy('tools/call', { name: 'nope' }), false],
  ['legacy unsupported version header', legacy('tools/list', undefined, '1999-01-01'), false],
  ['legacy arguments not an object', legacy('tools/call', { name: 'list_inboxes', arguments: 'x' }), false],
  [
    'legacy initialize',
    legacy('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    }),
    false,
  ],
  ['legacy ping', legacy('ping', undefined), false],
  ['modern resources/list', modern('resources/list', {}), false],
  ['legacy resources/read', legacy('resources/read', { uri: 'ui://inbox-triage/nope.html' }), false],
];

const headerOf = (r: Request) => (name: string) => r.headers.get(name) ?? undefined;

function parse(text: string, contentType: string | null): unknown {
  if (contentType?.startsWith('text/event-stream') === true) {
    const data = text.split('\n').find((l) => l.startsWith('data: '));
    return data === undefined ? undefined : JSON.parse(data.slice(6));
  }
  return JSON.parse(text);
}

/**
 * For the enclosing describe: an app with an owner, that owner as an API-key caller, and the tool registry. Set in
 * beforeAll, closed in afterAll.
 */
function ownerFixture(): { app: App; caller: Caller; registry: ToolRegistry } {
  const f = {} as { app: App; caller: Caller; registry: ToolRegistry };
  beforeAll(async () => {
    f.app = await createTestApp();
    f.caller = await ownerCaller(f.app);
    f.registry = new ToolRegistry(ALL_TOOLS, { audit: f.app.stores.audit, maxResultChars: 100_000 });
  });
  afterAll(async () => {
    await f.app.close();
  });
  return f;
}

/** The same request answered by the fast path and by the SDK's handler. */
async function bothWays(
  { app, caller, registry }: ReturnType<typeof ownerFixture>,
  headers: Record<string, string>,
  body: unknown,
) {
  const deps = { registry, services: app.services.tools, clock: app.clock };
  const make = () =>
    new Request('http://127.0.0.1:8787/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const viaFast = await fastPath(headerOf(make()), JSON.stringify(body), caller, deps);
  const sdk = createSdkHandler({ ...deps, onerror: () => undefined });
  const viaSdk = await sdk.fetch(make(), { authInfo: toAuthInfo(caller) });
  return { viaFast, viaSdk };
}

describe('the MCP fast path against the SDK', () => {
  const fixture = ownerFixture();

  it.each(CASES)('%s', async (_name, { headers, body }, fast) => {
    const { viaFast, viaSdk } = await bothWays(fixture, headers, body);
    if (!fast) {
      expect(viaFast).toBeUndefined();
      return;
    }
    expect(viaFast).toBeDefined();
    expect(viaFast!.status).toBe(viaSdk.status);
    expect(viaFast!.headers['content-type']).toBe(viaSdk.headers.get('content-type'));
    expect(parse(viaFast!.body.join(''), viaFast!.headers['content-type'] ?? null)).toEqual(
      parse(await viaSdk.text(), viaSdk.headers.get('content-type')),
    );
  });
});

describe('the MCP fast path against the SDK, for a result with data for its view', () => {
  const fixture = ownerFixture();

  // show_draft puts the draft card's single-use code in the result's _meta; each call mints a new one.
  const sameCodes = (text: string) =>
    text.replace(/card_[A-Za-z0-9]{32}/g, 'card_X').replace(/"expiresAt":"[^"]*"/g, '"expiresAt":"T"');

  it.each(['modern', 'legacy'] as const)('%s era: _meta exactly where the SDK puts it', async (era) => {
    const { app, caller } = fixture;
    const [demo] = await app.services.tools.inboxes.all(caller.principal);
    const draft = await app.services.tools.drafts.create(caller.principal, demo!.id, {
      to: 'friend@example.test',
      subject: 'Lunch?',
      text: 'Thursday?',
    });
    const args = {
      name: 'show_draft',
      arguments: { inboxId: demo!.id, draftId: draft.ok ? draft.value.id : '' },
    };
    const { headers, body } =
      era === 'modern' ? modern('tools/call', args, 'show_draft') : legacy('tools/call', args);
    const { viaFast, viaSdk } = await bothWays(fixture, headers, body);
    expect(viaFast).toBeDefined();
    const fastText = sameCodes(viaFast!.body.join(''));
    const sdkText = sameCodes(await viaSdk.text());
    expect(fastText).toContain('"_meta":{"inbox-triage/card":{"code":"card_X"');
    expect(parse(fastText, viaFast!.headers['content-type'] ?? null)).toEqual(
      parse(sdkText, viaSdk.headers.get('content-type')),
    );
    // Key order too: the JSON texts of the two results are the same.
    expect(JSON.stringify(parse(fastText, viaFast!.headers['content-type'] ?? null))).toBe(
      JSON.stringify(parse(sdkText, viaSdk.headers.get('content-type'))),
    );
  });
});

describe('the MCP fast path under random header and envelope mutations', () => {
  const fixture = ownerFixture();

  it('whenever it answers, it answers exactly as the SDK does', async () => {
    const { app, caller, registry } = fixture;
    const fc = await import('fast-check');
    const deps = { registry, services: app.services.tools, clock: app.clock };
    const sdk = createSdkHandler({ ...deps, onerror: () => undefined });
    let answered = 0;
    const maybe = <T>(a: Arbitrary<T>) => fc.option(a, { nil: undefined });
    const rarely = <T>(a: Arbitrary<T>) =>
      fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: a });
    // Weighted toward valid values so that a good share of samples reaches the fast path (asserted below).
    const likely = <T>(valid: T, ...others: T[]) =>
      fc.oneof(
        { weight: 4, arbitrary: fc.constant(valid) },
        { weight: 1, arbitrary: fc.constantFrom(...others) },
      );
    const version = likely('2026-07-28', '2025-11-25', '2025-06-18', '1999-01-01', ' 2026-07-28', '');
    const methodName = fc.oneof(
      fc.constant('tools/call'),
      fc.constant('tools/list'),
      fc.constantFrom('ping', 'server/discover'),
    );
    const toolName = likely('list_inboxes', 'nope', 'LIST_INBOXES', '=?base64?bGlzdF9pbmJveGVz?=');
    const sample = fc.record({
      method: methodName,
      name: maybe(toolName),
      args: maybe(likely<unknown>({}, { x: 1 }, [], 'str', null)),
      metaVersion: maybe(version),
      caps: maybe(likely<unknown>({}, null, 'x', { elicitation: {} })),
      hVersion: maybe(version),
      hMethod: maybe(
        fc.oneof({ weight: 5, arbitrary: methodName }, { weight: 1, arbitrary: fc.constant(' tools/call') }),
      ),
      hName: maybe(toolName),
      id: fc.oneof(
        fc.integer(),
        fc.string({ maxLength: 5 }),
        fc.constantFrom<unknown>(null, 1.5, -0, 2 ** 53, 1e300, true, [], {}),
      ),
      // Envelope members beyond the required two, valid and not.
      metaExtra: rarely(
        fc.constantFrom<Record<string, unknown>>(
          { 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } },
          { 'io.modelcontextprotocol/clientInfo': 5 },
          { 'io.modelcontextprotocol/logLevel': 'debug' },
          { 'io.modelcontextprotocol/logLevel': 'loud' },
          { progressToken: 3 },
          { progressToken: {} },
          { 'io.modelcontextprotocol/related-task': { taskId: 't' } },
          { 'example.com/x': 1 },
        ),
      ),
      // The JSON-RPC shape around it.
      shape: rarely(
        fc.constantFrom(
          'extra-member',
          'no-jsonrpc',
          'jsonrpc-1',
          'params-array',
          'params-null',
          'meta-array',
          'no-id',
          'result',
          'method-number',
        ),
      ),
    });
    await fc.assert(
      fc.asyncProperty(sample, async (s) => {
        const meta =
          s.metaVersion === undefined && s.metaExtra === undefined
            ? undefined
            : {
                ...(s.metaVersion !== undefined && {
                  'io.modelcontextprotocol/protocolVersion': s.metaVersion,
                }),
                ...(s.caps !== undefined && { 'io.modelcontextprotocol/clientCapabilities': s.caps }),
                ...s.metaExtra,
              };
        const params = {
          ...(s.name !== undefined && { name: s.name }),
          ...(s.args !== undefined && { arguments: s.args }),
          ...(meta !== undefined && { _meta: s.shape === 'meta-array' ? [meta] : meta }),
        };
        const message: Record<string, unknown> = { jsonrpc: '2.0', id: s.id, method: s.method, params };
        if (s.shape === 'extra-member') message['extra'] = 1;
        if (s.shape === 'no-jsonrpc') delete message['jsonrpc'];
        if (s.shape === 'jsonrpc-1') message['jsonrpc'] = '1.0';
        if (s.shape === 'params-array') message['params'] = [params];
        if (s.shape === 'params-null') message['params'] = null;
        if (s.shape === 'no-id') delete message['id'];
        if (s.shape === 'result') message['result'] = {};
        if (s.shape === 'method-number') message['method'] = 5;
        const body = JSON.stringify(message);
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        };
        if (s.hVersion !== undefined) headers['mcp-protocol-version'] = s.hVersion;
        if (s.hMethod !== undefined) headers['mcp-method'] = s.hMethod;
        if (s.hName !== undefined) headers['mcp-name'] = s.hName;
        const make = () => new Request('http://127.0.0.1:8787/mcp', { method: 'POST', headers, body });
        const viaFast = await fastPath(headerOf(make()), body, caller, deps);
        if (viaFast === undefined) return;
        answered++;
        const viaSdk = await sdk.fetch(make(), { authInfo: toAuthInfo(caller) });
        expect(viaFast.status).toBe(viaSdk.status);
        expect(parse(viaFast.body.join(''), viaFast.headers['content-type'] ?? null)).toEqual(
          parse(await viaSdk.text(), viaSdk.headers.get('content-type')),
        );
      }),
      { numRuns: 3000 },
    );
    // About 1.6% of samples are requests the fast path takes (48 ± 7 of 3000): enough to compare many answers.
    // The bound only proves the property reaches that branch, far enough below the mean never to fail by chance.
    expect(answered).toBeGreaterThan(15);
  });
});

describe('the MCP fast path on mostly valid requests', () => {
  const fixture = ownerFixture();

  // Tools whose answer does not change between the two calls of a sample (the fast path's, then the SDK's), with
  // valid arguments; every other tool is called with arguments its schema refuses (answered before it runs).
  const STEADY: Readonly<Record<string, (inboxId: string) => Record<string, unknown>>> = {
    list_inboxes: () => ({}),
    get_connection_status: (inboxId) => ({ inboxId }),
    list_folders: (inboxId) => ({ inboxId }),
    list_messages: (inboxId) => ({ inboxId, limit: 3 }),
    list_labels: (inboxId) => ({ inboxId }),
    get_triage_profile: () => ({}),
    list_vips: () => ({}),
    propose_connection: () => ({ email: 'dana@gmail.com' }),
    review_unsubscribes: () => ({ limit: 2 }),
  };

  it('compares at least 1,000 answers with the SDK’s per run, all equal', async () => {
    const { app, caller, registry } = fixture;
    const fc = await import('fast-check');
    const deps = { registry, services: app.services.tools, clock: app.clock };
    const sdk = createSdkHandler({ ...deps, onerror: () => undefined });
    const [demo] = await app.services.tools.inboxes.all(caller.principal);
    const inboxId = demo?.id ?? '';
    const names = ALL_TOOLS.map((t) => t.name);
    let answered = 0;
    const call = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(...Object.keys(STEADY)).map((name) => ({ name, valid: true })),
      },
      { weight: 2, arbitrary: fc.constantFrom(...names).map((name) => ({ name, valid: false })) },
    );
    const badArgs = fc.constantFrom<Record<string, unknown>>(
      { unknownMember: 1 },
      { inboxId: 5 },
      { inboxId: [], messageId: {} },
      { limit: 'ten', inboxId: null },
    );
    const sample = fc.record({
      era: fc.constantFrom('2026-07-28', '2026-07-28', '2025-11-25', '2025-06-18', 'none'),
      list: fc.oneof(
        { weight: 6, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      call,
      badArgs,
      id: fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.string({ minLength: 1, maxLength: 8 })),
      // One mutation in five: the fast path must then decline or still agree with the SDK.
      mutation: fc.oneof(
        { weight: 16, arbitrary: fc.constant('none') },
        {
          weight: 1,
          arbitrary: fc.constantFrom('header-name', 'header-method', 'extra-member', 'meta-extra'),
        },
      ),
    });
    await fc.assert(
      fc.asyncProperty(sample, async (s) => {
        const method = s.list ? 'tools/list' : 'tools/call';
        const modern = s.era === '2026-07-28';
        const args = s.call.valid ? (STEADY[s.call.name]?.(inboxId) ?? {}) : s.badArgs;
        const meta: Record<string, unknown> = modern
          ? {
              'io.modelcontextprotocol/protocolVersion': s.era,
              'io.modelcontextprotocol/clientCapabilities': {},
              ...(s.mutation === 'meta-extra' && { 'io.modelcontextprotocol/logLevel': 'loud' }),
            }
          : {};
        const params = s.list
          ? modern
            ? { _meta: meta }
            : {}
          : { name: s.call.name, arguments: args, ...(modern && { _meta: meta }) };
        const message: Record<string, unknown> = { jsonrpc: '2.0', id: s.id, method, params };
        if (s.mutation === 'extra-member') message['extra'] = 1;
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        };
        if (s.era !== 'none') headers['mcp-protocol-version'] = s.era;
        if (modern) {
          headers['mcp-method'] = s.mutation === 'header-method' ? 'tools/lis' : method;
          if (!s.list) headers['mcp-name'] = s.mutation === 'header-name' ? 'other' : s.call.name;
        }
        const body = JSON.stringify(message);
        const make = () => new Request('http://127.0.0.1:8787/mcp', { method: 'POST', headers, body });
        const viaFast = await fastPath(headerOf(make()), body, caller, deps);
        if (viaFast === undefined) return;
        answered++;
        const viaSdk = await sdk.fetch(make(), { authInfo: toAuthInfo(caller) });
        expect(viaFast.status).toBe(viaSdk.status);
        expect(parse(viaFast.body.join(''), viaFast.headers['content-type'] ?? null)).toEqual(
          parse(await viaSdk.text(), viaSdk.headers.get('content-type')),
        );
      }),
      { numRuns: 1400 },
    );
    expect(answered).toBeGreaterThanOrEqual(1000);
  }, 120_000);
});
