import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { clientAddress } from '../http/client-ip.ts';
import type { NodeLane } from '../http/serve.ts';
import type { McpHttpReply, McpHttpRequest } from './mcp-http.ts';

/**
 * `/mcp` straight on node:http, ahead of Hono: turning each Node request into a web `Request` and the answer back
 * costs more CPU than the tool call itself (docs/benchmarks-history.md). Only I/O conversion lives here; what /mcp does is
 * `mcpHttp` (mcp-http.ts), which the web adapter calls too.
 */
export function mcpNodeAdapter(
  serve: (r: McpHttpRequest) => Promise<McpHttpReply>,
  opts: { trustProxy: boolean },
): NodeLane {
  return (req, res) => {
    if (!(req.url === '/mcp' || req.url?.startsWith('/mcp?') === true)) return false;
    const headers = headerMap(req.rawHeaders);
    const header = (name: string) => headers.get(name);
    void serve({
      method: req.method ?? 'GET',
      header,
      readBody: (max) => readBody(req, max),
      clientAddress: () =>
        clientAddress(header('x-forwarded-for'), opts.trustProxy, () => req.socket.remoteAddress),
      toRequest: (body) =>
        new Request(`http://${header('host') ?? 'localhost'}${req.url ?? '/mcp'}`, {
          method: 'POST',
          headers: [...headers],
          body,
        }),
    })
      .then((reply) => write(res, reply))
      .catch(() => res.destroy()); // the frame answered every failure it could; a broken socket is all that is left
    return true;
  };
}

/** Request headers as a web `Headers` object reads them: lower-case names, repeated values joined. */
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

async function write(res: ServerResponse, reply: McpHttpReply): Promise<void> {
  res.writeHead(reply.status, reply.headers);
  if (reply.body === null) res.end();
  else if (typeof reply.body === 'string' || reply.body instanceof Uint8Array) res.end(reply.body);
  else await pipeline(Readable.fromWeb(reply.body as WebReadableStream), res);
}
