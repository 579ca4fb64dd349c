import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { beginRequest, endRequest, failedRequest } from '../http/request-frame.ts';
import { encodeBody, isFastReply, type FastReply, type HeaderOf } from './fast-path.ts';
import { bodyTooLarge, methodNotAllowed, type McpEndpoint } from './mcp-endpoint.ts';
import { MAX_MCP_BODY_BYTES } from './sdk-server.ts';

/** One HTTP exchange on `/mcp`, as the two thin adapters (node:http, web Request) present it. */
export interface McpHttpRequest {
  readonly method: string;
  readonly header: HeaderOf;
  /** The body as text, or undefined once it exceeds `max` bytes (declared or actually sent). */
  readBody(max: number): Promise<string | undefined>;
  /** The client's address, for the failed-authentication limit (computed only when needed). */
  readonly clientAddress: () => string;
  /** The same request as a web `Request` carrying `body`, for the SDK (built only when needed). */
  readonly toRequest: (body: string) => Request;
}

/** An answer as plain data: a fast-path string, or the SDK's stream (SSE) or text. */
export interface McpHttpReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null;
}

/**
 * `/mcp` — the only implementation (contract §4.2, §5 MCP; decision 0006): the request frame (id, access line,
 * last-resort 500), 405 for anything but POST, the Origin check, the body limit, then the endpoint (gate, fast
 * path, SDK). The node:http adapter (production) and the web adapter (`App.fetch`, in-process tests) only convert
 * I/O, so tests reach /mcp through this same code.
 */
export function mcpHttp(
  endpoint: McpEndpoint,
  opts: {
    log: Logger;
    accessLog: Logger;
    metrics?: Metrics;
    /** Reports a Host that is not BASE_URL's (host-check.ts). */
    checkHost?: (header: (name: string) => string | undefined) => void;
  },
): (r: McpHttpRequest) => Promise<McpHttpReply> {
  return async (r) => {
    const frame = beginRequest(r.header('x-request-id'), opts.log);
    opts.checkHost?.(r.header);
    let reply: McpHttpReply;
    try {
      reply = withId(await answer(r, endpoint, frame.log), frame.reqId);
    } catch (e) {
      reply = failedRequest(frame, e);
    }
    endRequest(
      frame,
      opts.accessLog,
      { method: r.method, path: '/mcp', status: reply.status, route: '/mcp' },
      opts.metrics,
    );
    return reply;
  };
}

async function answer(r: McpHttpRequest, endpoint: McpEndpoint, log: Logger): Promise<McpHttpReply> {
  // No server-to-client stream and no sessions: GET, DELETE and the rest are 405 (contract §4.2).
  if (r.method !== 'POST') return fromResponse(methodNotAllowed());
  const refusal = endpoint.originRefusal(r.header('origin'));
  if (refusal !== undefined) return fromResponse(refusal);
  const body = await r.readBody(MAX_MCP_BODY_BYTES);
  if (body === undefined) return fromResponse(bodyTooLarge());
  const handled = await endpoint.handle({
    header: r.header,
    body,
    clientAddress: r.clientAddress,
    toRequest: () => r.toRequest(body),
    log,
  });
  return isFastReply(handled) ? fastReply(handled) : fromResponse(handled);
}

/** Encoded once, piece by piece (fast-path.ts `FastReply`), so its length is known without a second pass. */
function fastReply(f: FastReply): McpHttpReply {
  const bytes = encodeBody(f.body);
  return { status: f.status, headers: { ...f.headers, 'content-length': String(bytes.length) }, body: bytes };
}

function fromResponse(res: Response): McpHttpReply {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: res.status, headers, body: res.body };
}

const withId = (reply: McpHttpReply, reqId: string): McpHttpReply => ({
  ...reply,
  headers: { ...reply.headers, 'x-request-id': reqId },
});
