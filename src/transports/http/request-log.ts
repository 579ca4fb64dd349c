import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../lib/logger.ts';
import type { HttpEnv } from './http-env.ts';

/**
 * One line per request: method, path (never the query string, which can hold one-time tokens), status and
 * time, and the request id on every answer. Each request gets a child logger bound to its id so handlers' lines can be correlated.
 */
export function requestLog(log: Logger, accessLog: Logger = log): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const started = performance.now();
    const reqId = c.get('requestId');
    c.set('log', log.child({ reqId }));
    await next();
    // Handlers that return their own Response bypass the context's headers; every answer names its request.
    if (!c.res.headers.has('x-request-id')) {
      try {
        c.res.headers.set('x-request-id', reqId);
      } catch {
        // an immutable Response (one passed through from fetch) keeps its own headers
      }
    }
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const line = { reqId, method: c.req.method, path: c.req.path, status: c.res.status, ms };
    if (c.res.status >= 500) accessLog.error(line, 'request failed');
    else accessLog.info(line, 'request');
  };
}
