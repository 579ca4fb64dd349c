import type { Hono, MiddlewareHandler } from 'hono';
import { callEntry, type AuditLog } from '../../core/audit/audit-log.ts';
import type { BearerVerifier } from '../../core/auth/principal.ts';
import type { DraftService } from '../../core/drafts/draft-service.ts';
import { parseInboxId } from '../../core/inboxes/inbox.ts';
import type { InboxService } from '../../core/inboxes/inbox-service.ts';
import { agentRequestRule, type RateLimiter } from '../../core/rate-limits/rate-limiter.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { agentGate, type AgentEnv } from '../http/agent-gate.ts';
import type { HttpEnv } from '../http/http-env.ts';
import { jsonError } from '../http/json-error.ts';
import { restUnauthenticated } from './rest-auth.ts';
import { registerDraftRoute } from './draft-route.ts';
import { registerOpenApiRoute } from './openapi.ts';
import { failureWords } from '../../lib/out-of-space.ts';

export interface RestDeps {
  readonly verifier: BearerVerifier;
  readonly inboxes: InboxService;
  readonly drafts: DraftService;
  readonly limiter: RateLimiter;
  /** Every call an agent makes here is in the person's activity log, as its MCP twin's is. */
  readonly audit: AuditLog;
  readonly log: Logger;
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
    rule: agentRequestRule('api', deps.perMinute),
    failureRule: { name: 'api-auth-fail', points: 30, windowSeconds: 60 },
    unauthenticated: restUnauthenticated,
  });
  // Everything agents call sits under /api/inboxes; /api/keys is the owner's, with its own guard.
  // In Hono '/api/inboxes/*' also matches '/api/inboxes' itself; registering both would run the gate twice.
  app.use('/api/inboxes/*', gate);

  /** The account's inboxes the key may reach (decision 0142), to pick an id for the draft endpoint. */
  app.get('/api/inboxes', audited(deps, 'list_inboxes', { readOnly: true }), async (c) => {
    return c.json({ inboxes: await deps.inboxes.list(c.get('principal')) });
  });

  registerDraftRoute(app, deps, audited(deps, 'create_draft', { readOnly: false }));
  registerOpenApiRoute(root, deps.openApi.baseUrl, deps.openApi.secureCookies);

  app.all('/api/*', (c) => {
    if (c.req.path === '/api/keys' || c.req.path.startsWith('/api/keys/'))
      return jsonError(405, 'method_not_allowed', 'Use GET, POST, PATCH or DELETE.');
    return jsonError(404, 'not_found', 'No such API route.');
  });
}

/**
 * Records the call in the person's activity log under the name of the MCP tool that does the same (decision 0059):
 * who called, which inbox, the outcome (`ok` or the error code answered). As on MCP (decision 0056), a read whose
 * row cannot be written is not answered; a change has happened, so its answer goes out and the failure is logged.
 */
function audited(
  deps: Pick<RestDeps, 'audit' | 'log' | 'clock'>,
  tool: string,
  o: { readOnly: boolean },
): MiddlewareHandler<AgentEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const outcome = c.res.status < 300 ? 'ok' : await errorCode(c.res);
    const unrecorded = await deps.audit
      .record(
        callEntry(c.get('principal'), {
          at: deps.clock.now(),
          tool,
          inboxId: parseInboxId(c.req.param('id') ?? '') ?? null,
          outcome,
          undoId: null,
          durationMs: Math.round(performance.now() - started),
        }),
      )
      .then(
        () => null,
        (e: unknown) => {
          deps.log.error({ err: e, tool, surface: 'rest' }, 'audit write failed');
          return { error: e };
        },
      );
    if (unrecorded !== null && o.readOnly && outcome === 'ok')
      c.res = jsonError(
        500,
        'internal_error',
        failureWords(
          unrecorded.error,
          'The answer could not be written to the activity log, so it is withheld. Try again later.',
        ),
      );
  };
}

/** The `error` of a JSON error body, or the status when the body has none. */
async function errorCode(res: Response): Promise<string> {
  try {
    const body: unknown = await res.clone().json();
    if (typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string')
      return body.error;
  } catch {
    // not JSON: the status says it
  }
  return `http_${String(res.status)}`;
}
