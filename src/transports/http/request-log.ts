import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../lib/logger.ts';
import type { HttpEnv } from './http-env.ts';

/**
 * One line per request: method, path (never the query string, which can hold one-time tokens), status and
 * time. Each request gets a child logger bound to its id so handlers' lines can be correlated.
 */
export function requestLog(log: Logger): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const started = performance.now();
    const reqLog = log.child({ reqId: c.get('requestId') });
    c.set('log', reqLog);
    await next();
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const line = { method: c.req.method, path: c.req.path, status: c.res.status, ms };
    if (c.res.status >= 500) reqLog.error(line, 'request failed');
    else reqLog.info(line, 'request');
  };
}
