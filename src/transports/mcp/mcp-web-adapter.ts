import { clientAddress } from '../http/client-ip.ts';
import type { McpHttpReply, McpHttpRequest } from './mcp-http.ts';

/**
 * `/mcp` for a web `Request` (`App.fetch`: in-process tests and any fetch-style host): the same `mcpHttp` as the
 * node:http adapter, with only I/O converted. There is no socket, so the client's address is the forwarded one
 * (when trusted) or unknown.
 */
export function mcpWebAdapter(
  serve: (r: McpHttpRequest) => Promise<McpHttpReply>,
  opts: { trustProxy: boolean },
): (req: Request) => Promise<Response> | undefined {
  return (req) => {
    if (new URL(req.url).pathname !== '/mcp') return undefined;
    const header = (name: string) => req.headers.get(name) ?? undefined;
    return serve({
      method: req.method,
      header,
      readBody: (max) => readBody(req, max),
      clientAddress: () => clientAddress(header('x-forwarded-for'), opts.trustProxy, () => undefined),
      toRequest: (body) => new Request(req.url, { method: 'POST', headers: req.headers, body }),
    }).then((reply) => new Response(reply.body, { status: reply.status, headers: reply.headers }));
  };
}

async function readBody(req: Request, max: number): Promise<string | undefined> {
  if (Number(req.headers.get('content-length') ?? 0) > max) return undefined;
  if (req.body === null) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
