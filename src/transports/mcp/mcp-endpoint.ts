import type { AccountStore } from '../../core/accounts/account-store.ts';
import type { BearerVerifier, Principal } from '../../core/auth/principal.ts';
import { requestChunk, type RateLimiter } from '../../core/rate-limits/rate-limiter.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { admitAgent, type AgentGateOptions } from '../http/agent-gate.ts';
import { fastPath, type FastReply, type HeaderOf } from './fast-path.ts';
import { mcpUnauthenticated } from './mcp-auth.ts';
import { createSdkHandler } from './sdk-server.ts';
import { toAuthInfo, type Caller } from './tool-context.ts';
import type { ToolRegistry } from './tool-registry.ts';
import type { ToolServices } from './tool-services.ts';

export interface McpEndpointDeps {
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

/** One `POST /mcp` whose body has been read (within the size limit). */
export interface McpExchange {
  readonly header: HeaderOf;
  readonly body: string;
  /** The client's address, for the failed-authentication limit (computed only when needed). */
  readonly clientAddress: () => string;
  /** The same request as a web `Request` carrying `body`, for the SDK (built only when needed). */
  readonly toRequest: () => Request;
  readonly log: Logger;
}

export interface McpEndpoint {
  /** MCP spec: an Origin that is present and not ours is refused with 403 (DNS-rebinding defence). */
  originRefusal(origin: string | undefined): Response | undefined;
  /** Authentication, then the fast path for the hot methods, then the SDK for everything else. */
  handle(x: McpExchange): Promise<Response | FastReply>;
}

export const jsonRpcError = (status: number, code: number, message: string, headers = {}) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

export const methodNotAllowed = () => jsonRpcError(405, -32000, 'Method not allowed.', { allow: 'POST' });

/** The rest of an oversized body is never read, so the connection cannot carry another request. */
export const bodyTooLarge = () =>
  jsonRpcError(413, -32000, 'Request body too large.', { connection: 'close' });

/**
 * `POST /mcp` without the HTTP framework, behind `mcpHttp` (mcp-http.ts), which both the node:http adapter and
 * the web adapter call: one implementation of /mcp.
 */
export function createMcpEndpoint(deps: McpEndpointDeps): McpEndpoint {
  const sdk = createSdkHandler({
    registry: deps.registry,
    services: deps.services,
    clock: deps.clock,
    onerror: () => undefined, // rejected requests are answered to the client; nothing to log
  });
  const gate: AgentGateOptions = {
    verifier: deps.verifier,
    limiter: deps.limiter,
    clock: deps.clock,
    trustProxy: deps.trustProxy,
    rule: { name: 'mcp', points: deps.perMinute, windowSeconds: 60, chunk: requestChunk(deps.perMinute) },
    failureRule: { name: 'mcp-auth-fail', points: 30, windowSeconds: 60 },
    unauthenticated: mcpUnauthenticated(deps.baseUrl),
  };
  const anonymous = deps.unauthenticatedAs;

  const admit = async (x: McpExchange) => {
    const authorization = x.header('authorization');
    if (anonymous !== undefined && authorization === undefined) {
      const account = await deps.accounts.get(anonymous.principal.accountId);
      if (account === undefined) throw new Error('unauthenticatedAs names no account');
      return { principal: anonymous.principal, account };
    }
    return admitAgent(gate, authorization, x.clientAddress);
  };

  return {
    originRefusal: (origin) =>
      origin !== undefined && !deps.allowedOrigins.has(origin)
        ? jsonRpcError(403, -32000, 'Forbidden: Origin not allowed.')
        : undefined,

    async handle(x) {
      const admitted = await admit(x);
      if (!('principal' in admitted)) return admitted;
      const caller: Caller = { ...admitted, log: x.log };
      const fast = await fastPath(x.header, x.body, caller, deps);
      if (fast !== undefined) return fast;
      return sdk.fetch(x.toRequest(), { authInfo: toAuthInfo(caller) });
    },
  };
}
