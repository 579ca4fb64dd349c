import {
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { Clock } from '../../lib/clock.ts';
import { claimsEnvelope, envelopeJudge, plainRequest } from './envelope.ts';
import { SERVER_INFO } from './instructions.ts';
import { toolContext, type Caller } from './tool-context.ts';
import type { ToolRegistry } from './tool-registry.ts';
import { resultMembersJson, resultMetaJson } from './tool-result.ts';
import type { ToolServices } from './tool-services.ts';

const SERVER_INFO_META_JSON = JSON.stringify({ 'io.modelcontextprotocol/serverInfo': SERVER_INFO });
const SERVER_INFO_MEMBER = SERVER_INFO_META_JSON.slice(1, -1);
const LEGACY_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);
/** The per-request-envelope revisions this fast path knows; a newer SDK revision simply goes to the SDK. */
const MODERN_VERSIONS: ReadonlySet<string> = new Set(['2026-07-28']);
const validEnvelope = envelopeJudge();

/** A request header by lower-case name. */
export type HeaderOf = (name: string) => string | undefined;

/**
 * A complete 200 answer, kept as plain data so the raw `node:http` lane can write it without a web `Response`. The
 * body is in pieces, encoded one by one: joined, a 50-preview answer became one string of ~140 KB that V8 allocates
 * outside its young generation, which cost more than the rest of the call (docs/benchmarks-history.md).
 */
export interface FastReply {
  readonly status: 200;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: readonly string[];
}

export interface FastPathDeps {
  readonly registry: ToolRegistry;
  readonly services: ToolServices;
  readonly clock: Clock;
}

/**
 * The hot methods — `tools/call` of a known tool and `tools/list` — answered without building a per-request SDK
 * server (docs/benchmarks.md: that costs ~90% of throughput). It only takes requests it is sure are valid: the exact
 * JSON-RPC request shape (`envelope.ts`, by hand), headers that agree with the body exactly, and an envelope the
 * SDK's own classifier accepts; anything else returns `undefined` and goes to the SDK, which answers every error
 * case. The responses are the SDK's, byte-shape for byte-shape: a differential test (examples and a property
 * over random envelopes) sends the same requests both ways.
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
  const request = plainRequest(message);
  if (request === undefined) return undefined;
  const { id, method, params, meta } = request;

  if (meta !== undefined && claimsEnvelope(meta)) {
    const version = header('mcp-protocol-version');
    if (version === undefined || !modernHeadersAgree(header, version, method, params, meta)) return undefined;
    if (!validEnvelope(meta, version)) return undefined;
    const answer = await dispatch(method, params, caller, deps);
    if (answer === undefined) return undefined;
    // As the SDK writes them: a result's own `_meta` first (its result schema's order), with the server's identity
    // stamped into it; without one, the identity goes last.
    const members =
      answer.kind === 'tools'
        ? [
            ...answer.members,
            `,"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":${SERVER_INFO_META_JSON}`,
          ]
        : answer.meta === undefined
          ? [...answer.members, `,"resultType":"complete","_meta":${SERVER_INFO_META_JSON}`]
          : [
              `"_meta":{${answer.meta},${SERVER_INFO_MEMBER}},`,
              ...answer.members,
              ',"resultType":"complete"',
            ];
    return json(['{"result":{', ...members, `},"jsonrpc":"2.0","id":${idJson(id)}}`]);
  }

  // The 2025 era: no envelope. A `_meta` of any other kind (progress tokens…) is left to the SDK to validate.
  if (meta !== undefined) return undefined;
  const version = header('mcp-protocol-version');
  if (version !== undefined && !LEGACY_VERSIONS.has(version)) return undefined;
  const answer = await dispatch(method, params, caller, deps);
  if (answer === undefined) return undefined;
  const members =
    answer.meta === undefined ? answer.members : [`"_meta":{${answer.meta}},`, ...answer.members];
  return sse(['{"result":{', ...members, `},"jsonrpc":"2.0","id":${idJson(id)}}`]);
}

/** A result's members as JSON text, without the braces: the reply is written around them by hand. */
interface Answer {
  readonly kind: 'tools' | 'call';
  readonly members: readonly string[];
  /** The result's own `_meta` members (data for a view), when it has any. */
  readonly meta?: string | undefined;
}

async function dispatch(
  method: string,
  params: unknown,
  caller: Caller,
  deps: FastPathDeps,
): Promise<Answer | undefined> {
  if (method === 'tools/list') {
    if (params !== undefined && (typeof params !== 'object' || params === null || 'cursor' in params))
      return undefined;
    return { kind: 'tools', members: ['"tools":', deps.registry.listedFor(caller.principal).json] };
  }
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return undefined;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || !deps.registry.has(name)) return undefined;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    return undefined;
  const result = await deps.registry.call(name, args, toolContext(caller, deps.services, deps.clock));
  return result === undefined
    ? undefined
    : { kind: 'call', members: resultMembersJson(result), meta: resultMetaJson(result) };
}

/** `plainRequest` admits only string and integer ids, whose JSON is their `JSON.stringify`. */
const idJson = (id: string | number): string => JSON.stringify(id);

/**
 * SEP-2243 standard headers, checked strictly: present, exactly equal to the body, a version we serve, and a
 * complete envelope. The SDK entry runs a more tolerant ladder after classification (whitespace, Base64
 * sentinels, error replies); any request we are not sure about is left to it.
 */
function modernHeadersAgree(
  header: HeaderOf,
  version: string,
  method: string,
  params: Readonly<Record<string, unknown>> | undefined,
  meta: Readonly<Record<string, unknown>>,
): boolean {
  if (!MODERN_VERSIONS.has(version) || meta[PROTOCOL_VERSION_META_KEY] !== version) return false;
  if (header('mcp-method') !== method) return false;
  if (method === 'tools/call') return header('mcp-name') === params?.['name'];
  return header('mcp-name') === undefined;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

function json(body: string[]): FastReply {
  return { status: 200, headers: JSON_HEADERS, body };
}

/** The 2025-era transport answers requests as a one-event SSE stream; so do we. */
function sse(data: string[]): FastReply {
  return { status: 200, headers: SSE_HEADERS, body: ['event: message\ndata: ', ...data, '\n\n'] };
}

export const isFastReply = (r: Response | FastReply): r is FastReply => Array.isArray(r.body);

/**
 * Where answers are encoded before being copied out at their exact size: writing into room known to be enough skips
 * the pass that measures each piece's UTF-8 length first, a third of the encoding's cost on a page of previews
 * (docs/benchmarks-history.md). Grown to the largest answer that fits `SCRATCH_MAX`; larger ones are measured.
 */
let scratch: Buffer<ArrayBuffer> | undefined;
const SCRATCH_MAX = 1 << 20;

/** The body's pieces as UTF-8 in one buffer, never joined into one string. */
export function encodeBody(pieces: readonly string[]): Buffer<ArrayBuffer> {
  let units = 0;
  for (const p of pieces) units += p.length;
  const room = units * 3; // a UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair: 4 bytes for 2 units)
  if (room > SCRATCH_MAX) return encodeMeasured(pieces);
  if (scratch === undefined || scratch.length < room)
    scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX, Math.max(room, 64 * 1024)));
  let at = 0;
  for (const p of pieces) at += scratch.write(p, at);
  const bytes = Buffer.allocUnsafe(at);
  scratch.copy(bytes, 0, 0, at);
  return bytes;
}

function encodeMeasured(pieces: readonly string[]): Buffer<ArrayBuffer> {
  let size = 0;
  for (const p of pieces) size += Buffer.byteLength(p);
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of pieces) at += bytes.write(p, at);
  return bytes;
}

/** A fast reply as a web `Response`, for the Hono route. */
export function toResponse(reply: FastReply): Response {
  return new Response(encodeBody(reply.body), { status: reply.status, headers: reply.headers });
}
