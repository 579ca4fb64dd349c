import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { expect } from 'vitest';
import type { App } from '../../src/app.ts';
import { createKeyViaPage, setUpOwner, type WebClient } from './web-client.ts';

export interface ToolResult {
  readonly isError: boolean;
  /** The result as an agent's code would use it: sender-written text without its markers, no `untrusted` notice. */
  readonly body: Record<string, unknown>;
  /** The result exactly as sent (`structuredContent`), markers and all. */
  readonly raw: Record<string, unknown>;
  /** The text item a model reads. */
  readonly text: string;
  /** The result's `_meta`: what only a view gets (the draft card's code). */
  readonly meta: Record<string, unknown> | undefined;
}

const MARKED = /\u27e6([a-z0-9]{6})\u27e7([\s\S]*?)\u27e6\/\1\u27e7/g;

/** A result with its untrusted-text markers taken off (decision 0017), for tests that compare values. */
export function unmarked(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(MARKED, '$2');
  if (Array.isArray(value)) return value.map(unmarked);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'untrusted')
        .map(([k, v]) => [k, unmarked(v)]),
    );
  return value;
}

/** Expects a tool call to have succeeded; returns its result. */
export function expectToolOk(r: ToolResult): Record<string, unknown> {
  expect(r.isError, JSON.stringify(r.body)).toBe(false);
  return r.body;
}

/** Expects a tool call to have failed with the given error code; returns its result. */
export function expectToolError(r: ToolResult, code: string): Record<string, unknown> {
  expect(r.isError, JSON.stringify(r.body)).toBe(true);
  expect(r.body['error']).toBe(code);
  return r.body;
}

/** Headers of a 2025-11-25 `/mcp` request with this bearer token: the revision that needs no per-request envelope. */
export const mcp2025Headers = (token: string): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
});

/**
 * The HTTP status of a `tools/list` on `/mcp` with this bearer token — 200, or 401 and 402 once a key is revoked or a
 * plan ended — sent in-process (`send` = an app's fetch) or over HTTP (`fetch`).
 */
export async function toolsListStatus(
  send: (req: Request) => Promise<Response> | Response,
  baseUrl: string,
  token: string,
): Promise<number> {
  const res = await send(
    new Request(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: mcp2025Headers(token),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    }),
  );
  return res.status;
}

/** Calls MCP tools over the real /mcp endpoint in-process (2026-07-28 wire), as an agent with an API key. */
export function toolCaller(app: App, key: string) {
  return callerVia((req) => Promise.resolve(app.fetch(req)), app.config.baseUrl, key);
}

/** The same over real HTTP, for a service running as a separate process. */
export function httpToolCaller(baseUrl: string, key: string): ReturnType<typeof toolCaller> {
  return callerVia((req) => fetch(req), baseUrl, key);
}

interface ListedTool {
  readonly name: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
}

type Check = (structuredContent: unknown) => { valid: boolean; errorMessage?: string | undefined };

/** Validators for every tool's published `outputSchema`, compiled as the v1 SDK client compiles them. */
export function outputValidators(tools: readonly ListedTool[]): ReadonlyMap<string, Check> {
  const ajv = new AjvJsonSchemaValidator();
  return new Map(
    tools.flatMap((t) => (t.outputSchema === undefined ? [] : [[t.name, ajv.getValidator(t.outputSchema)]])),
  );
}

/**
 * Every call checks its `structuredContent` (success or error) against the tool's `outputSchema` from
 * `tools/list`, so every test that calls tools also proves the published schemas describe the real results.
 */
function callerVia(send: (req: Request) => Promise<Response>, baseUrl: string, key: string) {
  let id = 0;
  const META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  async function rpc(method: string, params: Record<string, unknown>, name?: string) {
    const res = await send(
      new Request(new URL('/mcp', baseUrl), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          ...(name !== undefined && { 'mcp-name': name }),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: META } }),
      }),
    );
    const msg = (await res.json()) as { result?: unknown; error?: unknown };
    if (msg.result === undefined)
      throw new Error(`${method} ${name ?? ''} failed: ${res.status} ${JSON.stringify(msg.error)}`);
    return msg.result;
  }
  let validators: Promise<ReadonlyMap<string, Check>> | undefined;
  return async function callTool(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
    if (validators === undefined) {
      validators = rpc('tools/list', {}).then((r) => outputValidators((r as { tools: ListedTool[] }).tools));
      // Awaited below; if the call fails first (a server killed mid-call), its rejection is not left unhandled.
      validators.catch(() => undefined);
    }
    const result = (await rpc('tools/call', { name, arguments: args }, name)) as {
      isError?: boolean;
      structuredContent: Record<string, unknown>;
      content: { text: string }[];
      _meta?: Record<string, unknown>;
    };
    const check = (await validators).get(name);
    expect(check, `${name} publishes no outputSchema`).toBeDefined();
    const verdict = check?.(result.structuredContent);
    expect(verdict?.valid, `${name}: ${verdict?.errorMessage ?? ''} in ${JSON.stringify(result)}`).toBe(true);
    return {
      isError: result.isError === true,
      body: unmarked(result.structuredContent) as Record<string, unknown>,
      raw: result.structuredContent,
      text: result.content.map((c) => c.text).join('\n'),
      meta: result._meta,
    };
  };
}

/** An owner with a pro plan (3 keys) and an API key; returns the browser and a tool caller. */
export async function agentOn(
  app: App,
): Promise<{ web: WebClient; key: string; call: ReturnType<typeof toolCaller> }> {
  const web = await setUpOwner(app);
  return { web, ...(await agentOf(app, web)) };
}

/** An API key made by an owner already set up (`web` signed in as them), on a pro plan (3 keys), and its caller. */
export async function agentOf(
  app: App,
  web: WebClient,
): Promise<{ key: string; call: ReturnType<typeof toolCaller> }> {
  await app.services.accounts.setPlan('owner@example.test', 'pro');
  const key = await createKeyViaPage(web);
  return { key, call: toolCaller(app, key) };
}

/** A download link (`get_attachment`) to the first attachment among an inbox's synced messages, asked for by `call`. */
export async function firstAttachmentLink(
  call: ReturnType<typeof toolCaller>,
  inboxId: string,
): Promise<string> {
  const listed = expectToolOk(await call('list_messages', { inboxId, limit: 200 }))['messages'] as {
    messageId: string;
    hasAttachments: boolean;
  }[];
  const messageId = listed.find((m) => m.hasAttachments)!.messageId;
  const part = (
    expectToolOk(await call('get_message', { inboxId, messageId }))['attachments'] as { partId: string }[]
  )[0]!;
  return expectToolOk(await call('get_attachment', { inboxId, messageId, partId: part.partId }))[
    'url'
  ] as string;
}
