import {
  classifyInboundRequest,
  isJsonContentType,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { Clock } from '../../lib/clock.ts';
import { SERVER_INFO } from './instructions.ts';
import { toolContext, type Caller } from './tool-context.ts';
import type { ToolRegistry } from './tool-registry.ts';
import type { ToolServices } from './tool-services.ts';

const SERVER_INFO_META = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO };
const LEGACY_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);
/** The per-request-envelope revisions this fast path knows; a newer SDK revision simply goes to the SDK. */
const MODERN_VERSIONS: ReadonlySet<string> = new Set(['2026-07-28']);

/** A request header by lower-case name. */
export type HeaderOf = (name: string) => string | undefined;

/** A complete 200 answer, kept as plain data so the raw `node:http` lane can write it without a web `Response`. */
export interface FastReply {
  readonly status: 200;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface FastPathDeps {
  readonly registry: ToolRegistry;
  readonly services: ToolServices;
  readonly clock: Clock;
}

/**
 * The hot methods — `tools/call` of a known tool and `tools/list` — answered without building a per-request SDK
 * server (perf-notes.md: that costs ~90% of throughput). It only takes requests that are fully valid: the SDK's
 * own classifier (`classifyInboundRequest`, the same validation ladder `createMcpHandler` runs) must route the
 * request cleanly; anything else returns `undefined` and goes to the SDK, which answers every error case.
 * The responses are the SDK's, byte-shape for byte-shape: a differential test sends the same requests both ways.
 */
export async function fastPath(
  header: HeaderOf,
  body: string,
  caller: Caller,
  deps: FastPathDeps,
): Promise<FastReply | undefined> {
  const accept = header('accept') ?? '';
  if (
    !isJsonContentType(header('content-type') ?? null) ||
    !accept.includes('application/json') ||
    !accept.includes('text/event-stream')
  ) {
    return undefined;
  }
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  const protocolVersionHeader = header('mcp-protocol-version');
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    body: message,
    ...(protocolVersionHeader !== undefined && { protocolVersionHeader }),
    ...optionalHeader('mcpMethodHeader', header('mcp-method')),
    ...optionalHeader('mcpNameHeader', header('mcp-name')),
  });

  if (outcome.kind === 'modern' && outcome.messageKind === 'request') {
    const { id, method, params } = outcome.message;
    if (!modernHeadersAgree(header, method, params)) return undefined;
    const result = await dispatch(method, params, caller, deps);
    if (result === undefined) return undefined;
    const modern =
      method === 'tools/list'
        ? { ...result, resultType: 'complete', ttlMs: 0, cacheScope: 'private' }
        : { ...result, resultType: 'complete' };
    return json({ result: { ...modern, _meta: SERVER_INFO_META }, jsonrpc: '2.0', id });
  }

  if (outcome.kind === 'legacy' && outcome.reason === 'no-claim') {
    if (protocolVersionHeader !== undefined && !LEGACY_VERSIONS.has(protocolVersionHeader)) return undefined;
    const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    if (
      m.jsonrpc !== '2.0' ||
      typeof m.method !== 'string' ||
      !(typeof m.id === 'string' || Number.isInteger(m.id))
    )
      return undefined;
    const result = await dispatch(m.method, m.params, caller, deps);
    if (result === undefined) return undefined;
    return sse({ result, jsonrpc: '2.0', id: m.id });
  }
  return undefined;
}

async function dispatch(
  method: string,
  params: unknown,
  caller: Caller,
  deps: FastPathDeps,
): Promise<Record<string, unknown> | undefined> {
  if (method === 'tools/list') {
    if (params !== undefined && (typeof params !== 'object' || params === null || 'cursor' in params))
      return undefined;
    return { tools: deps.registry.listed };
  }
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return undefined;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || !deps.registry.has(name)) return undefined;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    return undefined;
  const result = await deps.registry.call(name, args, toolContext(caller, deps.services, deps.clock));
  return result === undefined ? undefined : { ...result };
}

/**
 * SEP-2243 standard headers, checked strictly: present, exactly equal to the body, a version we serve, and a
 * complete envelope. The SDK entry runs a more tolerant ladder after classification (whitespace, Base64
 * sentinels, error replies); any request we are not sure about is left to it.
 */
function modernHeadersAgree(header: HeaderOf, method: string, params: unknown): boolean {
  const version = header('mcp-protocol-version');
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  if (version === undefined || !MODERN_VERSIONS.has(version) || meta === undefined) return false;
  if (meta['io.modelcontextprotocol/protocolVersion'] !== version) return false;
  const caps = meta['io.modelcontextprotocol/clientCapabilities'];
  if (typeof caps !== 'object' || caps === null || Array.isArray(caps)) return false;
  if (header('mcp-method') !== method) return false;
  if (method === 'tools/call') return header('mcp-name') === (params as { name?: unknown }).name;
  return header('mcp-name') === undefined;
}

function optionalHeader<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

function json(payload: unknown): FastReply {
  return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(payload) };
}

/** The 2025-era transport answers requests as a one-event SSE stream; so do we. */
function sse(payload: unknown): FastReply {
  return { status: 200, headers: SSE_HEADERS, body: `event: message\ndata: ${JSON.stringify(payload)}\n\n` };
}

export const isFastReply = (r: Response | FastReply): r is FastReply => typeof r.body === 'string';

/** A fast reply as a web `Response`, for the Hono route. */
export function toResponse(reply: FastReply): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}
