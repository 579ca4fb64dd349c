import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../lib/logger.ts';
import type { HttpEnv } from './http-env.ts';
import { beginRequest, endRequest } from './request-frame.ts';

/** The request frame (request-frame.ts) as Hono middleware: id, bound logger, access line, id on every answer. */
export function requestLog(log: Logger, accessLog: Logger = log): MiddlewareHandler<HttpEnv> {
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
    endRequest(frame, accessLog, { method: c.req.method, path: c.req.path, status: c.res.status });
  };
}
