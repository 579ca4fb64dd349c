import type { Hono } from 'hono';
import type { BearerVerifier } from '../../core/auth/principal.ts';
import type { DraftService } from '../../core/drafts/draft-service.ts';
import type { InboxService } from '../../core/inboxes/inbox-service.ts';
import { requestChunk, type RateLimiter } from '../../core/rate-limits/rate-limiter.ts';
import type { Clock } from '../../lib/clock.ts';
import { agentGate, type AgentEnv } from '../http/agent-gate.ts';
import type { HttpEnv } from '../http/http-env.ts';
import { jsonError } from '../http/json-error.ts';
import { restUnauthenticated } from './rest-auth.ts';
import { registerDraftRoute } from './draft-route.ts';
import { registerOpenApiRoute } from './openapi.ts';

export interface RestDeps {
  readonly verifier: BearerVerifier;
  readonly inboxes: InboxService;
  readonly drafts: DraftService;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly trustProxy: boolean;
  readonly perMinute: number;
  /** Where the OpenAPI document says the API lives, and which session cookie it names. */
  readonly openApi: { readonly baseUrl: string; readonly secureCookies: boolean };
}

/** The agent REST API under /api (contract §4.1; keys management lives in key-routes.ts). */
export function registerRestApi(root: Hono<HttpEnv>, deps: RestDeps): void {
  const app = root as unknown as Hono<AgentEnv>;
  const gate = agentGate({
    verifier: deps.verifier,
    limiter: deps.limiter,
    clock: deps.clock,
    trustProxy: deps.trustProxy,
    rule: { name: 'api', points: deps.perMinute, windowSeconds: 60, chunk: requestChunk(deps.perMinute) },
    failureRule: { name: 'api-auth-fail', points: 30, windowSeconds: 60 },
    unauthenticated: restUnauthenticated,
  });
  // Everything agents call sits under /api/inboxes; /api/keys is the owner's, with its own guard.
  // In Hono '/api/inboxes/*' also matches '/api/inboxes' itself; registering both would run the gate twice.
  app.use('/api/inboxes/*', gate);

  /** The account's inboxes, to pick an id for the draft endpoint. */
  app.get('/api/inboxes', async (c) => {
    return c.json({ inboxes: await deps.inboxes.list(c.get('principal').accountId) });
  });

  registerDraftRoute(app, deps);
  registerOpenApiRoute(root, deps.openApi.baseUrl, deps.openApi.secureCookies);

  app.all('/api/*', (c) => {
    if (c.req.path === '/api/keys' || c.req.path.startsWith('/api/keys/'))
      return jsonError(405, 'method_not_allowed', 'Use GET, POST or DELETE.');
    return jsonError(404, 'not_found', 'No such API route.');
  });
}
