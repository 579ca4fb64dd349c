import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { clientIp } from '../http/client-ip.ts';
import type { HttpEnv } from '../http/http-env.ts';
import { isFastReply, toResponse } from './fast-path.ts';
import { bodyTooLarge, methodNotAllowed, type McpEndpoint } from './mcp-endpoint.ts';
import { MAX_MCP_BODY_BYTES } from './sdk-server.ts';

/**
 * `/mcp` on Hono: Streamable HTTP, stateless, both protocol eras (contract §4.2, §5 MCP). In the running service
 * `POST /mcp` is normally taken earlier by the raw `node:http` lane (`mcp-node-lane.ts`); this route serves
 * in-process requests (tests, `app.fetch`) and anything the lane hands over. Both call the same endpoint.
 */
export function registerMcpRoute(
  app: Hono<HttpEnv>,
  endpoint: McpEndpoint,
  opts: { trustProxy: boolean },
): void {
  // No server-to-client stream and no sessions: GET and DELETE are 405 (contract §4.2).
  app.on(['GET', 'DELETE', 'PUT', 'PATCH'], '/mcp', () => methodNotAllowed());

  app.post(
    '/mcp',
    async (c, next) => {
      const refusal = endpoint.originRefusal(c.req.header('origin'));
      if (refusal !== undefined) return refusal;
      await next();
      return undefined;
    },
    bodyLimit({ maxSize: MAX_MCP_BODY_BYTES, onError: () => bodyTooLarge() }),
    async (c) => {
      const body = await c.req.text();
      const raw = c.req.raw;
      const reply = await endpoint.handle({
        header: (name) => raw.headers.get(name) ?? undefined,
        body,
        clientAddress: () => clientIp(c, opts.trustProxy),
        // The body has been read; hand the SDK an equivalent request carrying the same bytes.
        toRequest: () => new Request(raw.url, { method: 'POST', headers: raw.headers, body }),
        log: c.get('log'),
      });
      return isFastReply(reply) ? toResponse(reply) : reply;
    },
  );
}
