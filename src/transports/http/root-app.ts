import { Hono } from 'hono';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { healthRoutes, type Readiness } from './health-routes.ts';
import type { HttpEnv } from './http-env.ts';
import { failedRequest } from './request-frame.ts';
import { jsonError } from './json-error.ts';
import { InboxGoneError } from '../../core/inboxes/inbox-errors.ts';
import { requestLog } from './request-log.ts';
import { BadInputError, NUL_REFUSED } from './bad-input.ts';
import { urlHoldsNul } from '../../lib/nul.ts';

export interface RootAppDeps {
  readonly log: Logger;
  readonly readiness: Readiness;
  /** Unredacted logger for access lines (fixed, safe fields only). */
  readonly accessLog?: Logger;
  readonly metrics?: Metrics;
}

/**
 * The HTTP surface: the request frame (request-frame.ts: ids, access lines, the last-resort error mapping) and health. Unexpected errors
 * answer a JSON 500 naming the request id — never a stack trace; the stack goes to the log only.
 */
export function createRootApp(deps: RootAppDeps): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.use(requestLog(deps.log, deps.accessLog, deps.metrics));
  // Path and query parameters reach lookups on every route: NUL is refused once, here (decision 0060).
  app.use(async (c, next) => {
    if (urlHoldsNul(c.req.url)) return jsonError(400, 'invalid_request', NUL_REFUSED);
    await next();
    return undefined;
  });
  app.route('/', healthRoutes(deps.readiness));
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.notFound((c) => c.json({ error: 'not_found', error_description: 'No such route.' }, 404));
  app.onError((e, c) => {
    // An inbox removed while the request ran (a store refused a row of it): what the contract calls a removed inbox.
    if (e instanceof InboxGoneError) return jsonError(404, 'inbox_not_found', e.message);
    if (e instanceof BadInputError) return jsonError(400, 'invalid_request', e.message);
    const failed = failedRequest(c.get('frame'), e);
    return new Response(failed.body, { status: failed.status, headers: failed.headers });
  });
  return app;
}
