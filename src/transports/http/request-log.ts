import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes, routePath } from 'hono/route';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/metrics.ts';
import type { HttpEnv } from './http-env.ts';
import { beginRequest, endRequest } from './request-frame.ts';

/** The request frame (request-frame.ts) as Hono middleware: id, bound logger, access line, id on every answer. */
export function requestLog(
  log: Logger,
  accessLog: Logger = log,
  metrics?: Metrics,
): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const frame = beginRequest(c.req.header('x-request-id'), log);
    c.set('requestId', frame.reqId);
    c.set('log', frame.log);
    c.set('frame', frame);
    c.header('X-Request-Id', frame.reqId);
    await next();
    // Handlers that return their own Response bypass the context's headers; every answer names its request.
    if (!c.res.headers.has('x-request-id')) {
      try {
        c.res.headers.set('x-request-id', frame.reqId);
      } catch {
        // an immutable Response (one passed through from fetch) keeps its own headers
      }
    }
    endRequest(
      frame,
      accessLog,
      { method: c.req.method, path: c.req.path, status: c.res.status, route: routeLabel(c) },
      metrics,
    );
  };
}

/**
 * The route pattern a request is counted under: the method route it matched (`/api/inboxes/:id/draft`, even when a
 * middleware such as the key gate answered first), else the pattern that answered; one label for no match at all.
 */
function routeLabel(c: Context<HttpEnv>): string {
  const route = matchedRoutes(c).find((r) => r.method !== 'ALL');
  if (route !== undefined) return route.path;
  const answered = routePath(c);
  return c.res.status === 404 && answered === '/*' ? '(unmatched)' : answered;
}
