import type { AccountStore } from '../../core/accounts/account-store.ts';
import { credentialKey, type BearerVerifier, type Principal } from '../../core/auth/principal.ts';
import { agentRequestRule, type RateLimiter } from '../../core/rate-limits/rate-limiter.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { admitAgent, type AgentGateOptions } from '../http/agent-gate.ts';
import { tooManyRequests } from '../http/json-error.ts';
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
    rule: agentRequestRule('mcp', deps.perMinute),
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

  /** A batch's messages past the first, spent from the credential's budget; past `MAX_BATCH`, refused. */
  const spendBatch = async (body: string, principal: Principal): Promise<Response | undefined> => {
    const length = batchLength(body);
    if (length === undefined || length <= 1) return undefined;
    if (length > MAX_BATCH)
      return jsonRpcError(
        400,
        -32600,
        `Invalid Request: a batch holds at most ${String(MAX_BATCH)} messages; this one holds ${String(length)}.`,
      );
    // More than a whole minute's budget: no wait would let it through, so it is not answered as if one would
    // (a 429's Retry-After), but as a batch to send smaller (decision 0153).
    if (length > gate.rule.points)
      return jsonRpcError(
        400,
        -32600,
        `Invalid Request: this credential takes ${String(gate.rule.points)} requests a minute and a batch counts one per message, so a batch of ${String(length)} never fits; send at most ${String(gate.rule.points)} at once.`,
      );
    const spent = await deps.limiter.consume(gate.rule, credentialKey(principal), length - 1);
    return spent.allowed ? undefined : tooManyRequests(spent.retryAfterSeconds);
  };

  return {
    originRefusal: (origin) =>
      origin !== undefined && !deps.allowedOrigins.has(origin)
        ? jsonRpcError(403, -32000, 'Forbidden: Origin not allowed.')
        : undefined,

    async handle(x) {
      // A batch is refused where the revision has none before anything else, and read only once its sender is
      // known, so that no stranger's array costs a parse; its other messages are then spent like requests of their own.
      const batched = x.body.trimStart().startsWith('[');
      const revision = x.header('mcp-protocol-version');
      if (batched && !BATCHING_REVISIONS.has(revision)) return noBatches(revision);
      const admitted = await admit(x);
      if (!('principal' in admitted)) return admitted;
      if (batched) {
        const refused = await spendBatch(x.body, admitted.principal);
        if (refused !== undefined) return refused;
      }
      const caller: Caller = { ...admitted, log: x.log };
      const fast = await fastPath(x.header, x.body, caller, deps);
      if (fast !== undefined) return fast;
      return sdk.fetch(x.toRequest(), { authInfo: toAuthInfo(caller) });
    },
  };
}

/** The most messages one JSON-RPC batch may hold (MCP 2025-03-26, the last revision with batches). */
export const MAX_BATCH = 20;
/** The revisions whose clients may send a batch: an absent header means 2025-03-26 (MCP 2025-06-18, transports). */
const BATCHING_REVISIONS = new Set([undefined, '2024-11-05', '2025-03-26']);

/** How many messages a batch body holds, or undefined for a body the SDK will refuse (not JSON, not an array). */
function batchLength(body: string): number | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return Array.isArray(parsed) ? parsed.length : undefined;
  } catch {
    return undefined;
  }
}

/** A batch under a revision that has none: refused whole, in words (decision 0113). */
function noBatches(revision: string | undefined): Response {
  return jsonRpcError(
    400,
    -32600,
    `Invalid Request: MCP ${String(revision)} has no batches; send one JSON-RPC message per request.`,
  );
}
