import { Hono } from 'hono';
import type { Logger } from '../../lib/logger.ts';
import { healthRoutes, type Readiness } from './health-routes.ts';
import type { HttpEnv } from './http-env.ts';
import { internalErrorBody } from './json-error.ts';
import { requestIdOf } from './request-id.ts';
import { requestLog } from './request-log.ts';

export interface RootAppDeps {
  readonly log: Logger;
  readonly readiness: Readiness;
  /** Unredacted logger for access lines (fixed, safe fields only). */
  readonly accessLog?: Logger;
}

/**
 * The HTTP surface: request ids, access logs, health, and the last-resort error mapping. Unexpected errors
 * answer a JSON 500 naming the request id — never a stack trace; the stack goes to the log only.
 */
export function createRootApp(deps: RootAppDeps): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.use(async (c, next) => {
    const id = requestIdOf(c.req.header('x-request-id'));
    c.set('requestId', id);
    c.header('X-Request-Id', id);
    await next();
  });
  app.use(requestLog(deps.log, deps.accessLog));
  app.route('/', healthRoutes(deps.readiness));
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.notFound((c) => c.json({ error: 'not_found', error_description: 'No such route.' }, 404));
  app.onError((e, c) => {
    const id = c.get('requestId');
    c.get('log').error({ err: e }, 'unhandled error');
    return c.json(internalErrorBody(id), 500);
  });
  return app;
}
