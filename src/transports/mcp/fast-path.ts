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
  request: Request,
  body: string,
  caller: Caller,
  deps: FastPathDeps,
): Promise<Response | undefined> {
  const accept = request.headers.get('accept') ?? '';
  if (
    !isJsonContentType(request.headers.get('content-type')) ||
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
  const protocolVersionHeader = request.headers.get('mcp-protocol-version') ?? undefined;
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    body: message,
    ...(protocolVersionHeader !== undefined && { protocolVersionHeader }),
    ...optionalHeader('mcpMethodHeader', request.headers.get('mcp-method')),
    ...optionalHeader('mcpNameHeader', request.headers.get('mcp-name')),
  });

  if (outcome.kind === 'modern' && outcome.messageKind === 'request') {
    const { id, method, params } = outcome.message;
    if (!modernHeadersAgree(request.headers, method, params)) return undefined;
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
function modernHeadersAgree(headers: Headers, method: string, params: unknown): boolean {
  const version = headers.get('mcp-protocol-version');
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  if (version === null || !MODERN_VERSIONS.has(version) || meta === undefined) return false;
  if (meta['io.modelcontextprotocol/protocolVersion'] !== version) return false;
  const caps = meta['io.modelcontextprotocol/clientCapabilities'];
  if (typeof caps !== 'object' || caps === null || Array.isArray(caps)) return false;
  if (headers.get('mcp-method') !== method) return false;
  if (method === 'tools/call') return headers.get('mcp-name') === (params as { name?: unknown }).name;
  return headers.get('mcp-name') === null;
}

function optionalHeader<K extends string>(key: K, value: string | null): Partial<Record<K, string>> {
  return value === null ? {} : ({ [key]: value } as Record<K, string>);
}

function json(payload: unknown): Response {
  return new Response(JSON.stringify(payload), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}

/** The 2025-era transport answers requests as a one-event SSE stream; so do we. */
function sse(payload: unknown): Response {
  return new Response(`event: message\ndata: ${JSON.stringify(payload)}\n\n`, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  });
}
