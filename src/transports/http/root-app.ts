import { Hono } from 'hono';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { healthRoutes, type Readiness } from './health-routes.ts';
import type { HttpEnv } from './http-env.ts';
import { failedRequest } from './request-frame.ts';
import { jsonError } from './json-error.ts';
import { InboxGoneError } from '../../core/inboxes/inbox-errors.ts';
import { requestLog } from './request-log.ts';

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
  app.route('/', healthRoutes(deps.readiness));
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.notFound((c) => c.json({ error: 'not_found', error_description: 'No such route.' }, 404));
  app.onError((e, c) => {
    // An inbox removed while the request ran (a store refused a row of it): what the contract calls a removed inbox.
    if (e instanceof InboxGoneError) return jsonError(404, 'inbox_not_found', e.message);
    const failed = failedRequest(c.get('frame'), e);
    return new Response(failed.body, { status: failed.status, headers: failed.headers });
  });
  return app;
}
