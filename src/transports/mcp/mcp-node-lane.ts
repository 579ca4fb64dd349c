import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Logger } from '../../lib/logger.ts';
import { clientAddress } from '../http/client-ip.ts';
import { internalErrorBody } from '../http/json-error.ts';
import { requestIdOf } from '../http/request-id.ts';
import type { NodeLane } from '../http/serve.ts';
import { isFastReply, type FastReply } from './fast-path.ts';
import { bodyTooLarge, type McpEndpoint } from './mcp-endpoint.ts';
import { MAX_MCP_BODY_BYTES } from './sdk-server.ts';

/**
 * `POST /mcp` straight on `node:http`, ahead of Hono. Agents call this endpoint more than everything else
 * together, and turning each Node request into a web `Request` and the answer back costs more CPU than the
 * tool call itself (docs/benchmarks.md). The lane does what the Hono stack does for this route — request id,
 * Origin check, body limit, access-log line, last-resort 500 — and hands the exchange to the same
 * `McpEndpoint` the Hono route calls. Anything else (other methods and paths) goes to Hono.
 */
export function mcpNodeLane(
  endpoint: McpEndpoint,
  opts: { trustProxy: boolean; log: Logger; accessLog: Logger },
): NodeLane {
  return (req, res) => {
    if (req.method !== 'POST' || !(req.url === '/mcp' || req.url?.startsWith('/mcp?') === true)) return false;
    void serve(req, res, endpoint, opts);
    return true;
  };
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  endpoint: McpEndpoint,
  opts: { trustProxy: boolean; log: Logger; accessLog: Logger },
): Promise<void> {
  const started = performance.now();
  const headers = headerMap(req.rawHeaders);
  const header = (name: string) => headers.get(name);
  const reqId = requestIdOf(header('x-request-id'));
  let status = 500;
  try {
    const refusal = endpoint.originRefusal(header('origin'));
    const body = refusal === undefined ? await readBody(req, MAX_MCP_BODY_BYTES) : undefined;
    let reply: Response | FastReply;
    if (refusal !== undefined) reply = refusal;
    else if (body === undefined) reply = bodyTooLarge();
    else
      reply = await endpoint.handle({
        header,
        body,
        clientAddress: () =>
          clientAddress(header('x-forwarded-for'), opts.trustProxy, () => req.socket.remoteAddress),
        toRequest: () =>
          new Request(`http://${header('host') ?? 'localhost'}${req.url ?? '/mcp'}`, {
            method: 'POST',
            headers: [...headers],
            body,
          }),
        log: lazyChild(opts.log, { reqId }),
      });
    status = reply.status;
    await write(res, reply, reqId);
  } catch (e) {
    status = 500;
    opts.log.child({ reqId }).error({ err: e }, 'unhandled error');
    if (!res.headersSent) {
      const body = JSON.stringify(internalErrorBody(reqId));
      res.writeHead(500, { 'content-type': 'application/json', 'x-request-id': reqId });
      res.end(body);
    } else res.destroy();
  }
  const ms = Math.round((performance.now() - started) * 10) / 10;
  const line = { reqId, method: 'POST', path: '/mcp', status, ms };
  if (status >= 500) opts.accessLog.error(line, 'request failed');
  else opts.accessLog.info(line, 'request');
}

/**
 * Request headers as a web `Headers` object would read them: lower-case names, repeated values joined (llhttp
 * has already stripped the whitespace around values).
 */
function headerMap(raw: readonly string[]): Map<string, string> {
  const m = new Map<string, string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    const value = raw[i + 1] ?? '';
    const seen = m.get(name);
    m.set(name, seen === undefined ? value : `${seen}, ${value}`);
  }
  return m;
}

/** The body as text, or `undefined` once it exceeds `max` bytes (declared or actually sent). */
function readBody(req: IncomingMessage, max: number): Promise<string | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > max) {
    req.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.off('data', onData);
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      if (size <= max) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.once('error', reject);
  });
}

async function write(res: ServerResponse, reply: Response | FastReply, reqId: string): Promise<void> {
  if (isFastReply(reply)) {
    res.writeHead(reply.status, {
      ...reply.headers,
      'x-request-id': reqId,
      'content-length': Buffer.byteLength(reply.body),
    });
    res.end(reply.body);
    return;
  }
  const out: Record<string, string> = {};
  reply.headers.forEach((value, name) => {
    out[name] = value;
  });
  out['x-request-id'] = reqId;
  res.writeHead(reply.status, out);
  if (reply.body === null) res.end();
  else await pipeline(Readable.fromWeb(reply.body as WebReadableStream), res);
}

/** A child logger created on first use: most requests never log beyond the access line. */
function lazyChild(log: Logger, bindings: Record<string, unknown>): Logger {
  let child: Logger | undefined;
  const get = () => (child ??= log.child(bindings));
  return {
    error: (o, m) => {
      get().error(o, m);
    },
    warn: (o, m) => {
      get().warn(o, m);
    },
    info: (o, m) => {
      get().info(o, m);
    },
    debug: (o, m) => {
      get().debug(o, m);
    },
    child: (b) => get().child(b),
  };
}
