import type { Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AccountStore } from '../../core/accounts/account-store.ts';
import type { BearerVerifier, Principal } from '../../core/auth/principal.ts';
import type { RateLimiter } from '../../core/rate-limits/rate-limiter.ts';
import type { Clock } from '../../lib/clock.ts';
import { agentGate, type AgentEnv } from '../http/agent-gate.ts';
import type { HttpEnv } from '../http/http-env.ts';
import { fastPath } from './fast-path.ts';
import { mcpUnauthenticated } from './mcp-auth.ts';
import { createSdkHandler, MAX_MCP_BODY_BYTES } from './sdk-server.ts';
import { toAuthInfo, type Caller } from './tool-context.ts';
import type { ToolRegistry } from './tool-registry.ts';
import type { ToolServices } from './tool-services.ts';

export interface McpRouteDeps {
  readonly registry: ToolRegistry;
  readonly services: ToolServices;
  readonly verifier: BearerVerifier;
  readonly accounts: AccountStore;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly baseUrl: string;
  readonly trustProxy: boolean;
  readonly perMinute: number;
  /** Origins allowed to call from a browser; requests without Origin (hosts, CLIs) are always allowed. */
  readonly allowedOrigins: ReadonlySet<string>;
  /**
   * Tests only (the conformance suite cannot send credentials): requests without an Authorization header act
   * as this principal. There is no configuration setting for it.
   */
  readonly unauthenticatedAs?: { principal: Principal };
}

const jsonRpcError = (status: number, code: number, message: string) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });

/** `POST /mcp`: Streamable HTTP, stateless, both protocol eras (contract §4.2, §5 MCP). */
export function registerMcpRoute(root: Hono<HttpEnv>, deps: McpRouteDeps): void {
  const app = root as unknown as Hono<AgentEnv>;
  const sdk = createSdkHandler({
    registry: deps.registry,
    services: deps.services,
    clock: deps.clock,
    onerror: () => undefined, // rejected requests are answered to the client; nothing to log
  });

  // No server-to-client stream and no sessions: GET and DELETE are 405 (contract §4.2).
  app.on(
    ['GET', 'DELETE', 'PUT', 'PATCH'],
    '/mcp',
    () =>
      new Response(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }),
        {
          status: 405,
          headers: { allow: 'POST', 'content-type': 'application/json' },
        },
      ),
  );

  const originGuard: MiddlewareHandler<AgentEnv> = async (c, next) => {
    const origin = c.req.header('origin');
    // MCP spec: an Origin that is present and not ours is refused with 403 (DNS-rebinding defence).
    if (origin !== undefined && !deps.allowedOrigins.has(origin))
      return jsonRpcError(403, -32000, 'Forbidden: Origin not allowed.');
    await next();
    return undefined;
  };

  const gate = agentGate({
    verifier: deps.verifier,
    limiter: deps.limiter,
    clock: deps.clock,
    trustProxy: deps.trustProxy,
    rule: { name: 'mcp', points: deps.perMinute, windowSeconds: 60 },
    failureRule: { name: 'mcp-auth-fail', points: 30, windowSeconds: 60 },
    unauthenticated: mcpUnauthenticated(deps.baseUrl),
  });
  const anonymous = deps.unauthenticatedAs;
  const authenticate: MiddlewareHandler<AgentEnv> =
    anonymous === undefined
      ? gate
      : async (c, next) => {
          if (c.req.header('authorization') !== undefined) return gate(c, next);
          const account = await deps.accounts.get(anonymous.principal.accountId);
          if (account === undefined) throw new Error('unauthenticatedAs names no account');
          c.set('principal', anonymous.principal);
          c.set('account', account);
          await next();
          return undefined;
        };

  app.post(
    '/mcp',
    originGuard,
    bodyLimit({
      maxSize: MAX_MCP_BODY_BYTES,
      onError: () => jsonRpcError(413, -32000, 'Request body too large.'),
    }),
    authenticate,
    async (c) => {
      const caller: Caller = { principal: c.get('principal'), account: c.get('account'), log: c.get('log') };
      const body = await c.req.text();
      const fast = await fastPath(c.req.raw, body, caller, deps);
      if (fast !== undefined) return fast;
      // The body has been read; hand the SDK an equivalent request carrying the same bytes.
      const request = new Request(c.req.raw.url, { method: 'POST', headers: c.req.raw.headers, body });
      return sdk.fetch(request, { authInfo: toAuthInfo(caller) });
    },
  );
}
