import type { Logger } from '../../lib/logger.ts';
import { noMetrics, type Metrics } from '../../lib/metrics.ts';
import { internalErrorBody } from './json-error.ts';
import { requestIdOf } from './request-id.ts';

/**
 * What every HTTP request gets, whichever way it came in (Hono for pages, REST and OAuth; the node:http adapter
 * for /mcp): a request id, a logger bound to it, one access line when it ends, and a last-resort 500 that names the
 * request id and never the error. One framework-free place, so something added here (a metric, a trace) reaches
 * every route alike.
 */
export interface RequestFrame {
  readonly reqId: string;
  /** Bound to the request id; created on first use (most requests log nothing but the access line). */
  readonly log: Logger;
  readonly started: number;
}

export function beginRequest(givenRequestId: string | undefined, log: Logger): RequestFrame {
  const reqId = requestIdOf(givenRequestId);
  return { reqId, log: lazyChild(log, { reqId }), started: performance.now() };
}

/**
 * One line per request: method, path (never the query string, which can hold one-time tokens, and no token written
 * in the path itself: `loggedPath`), status, time; and the request counted by its route pattern (never the path
 * itself: ids in paths would make labels unbounded).
 */
export function endRequest(
  frame: RequestFrame,
  accessLog: Logger,
  r: { method: string; path: string; status: number; route: string },
  metrics: Metrics = noMetrics,
): void {
  const elapsed = performance.now() - frame.started;
  metrics.httpRequest(r.route, r.method, r.status, elapsed / 1000);
  const ms = Math.round(elapsed * 10) / 10;
  const line = { reqId: frame.reqId, method: r.method, path: loggedPath(r.path), status: r.status, ms };
  if (r.status >= 500) accessLog.error(line, 'request failed');
  // A load balancer asks every few seconds, a scraper every few more: their answers that say all is well are debug
  // lines, or they would be most of the log (decision 0136). A 503 from /readyz, or a refused scrape, is not.
  else if (PROBES.has(r.route) && r.status < 400) accessLog.debug(line, 'request');
  else accessLog.info(line, 'request');
}

/** The routes machines poll: health, readiness, metrics. */
const PROBES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

// A path segment shaped like one of our secrets (`att_…`, `itk_…`, `cap_…`: a prefix and at least 16 letters or digits).
const TOKEN_SEGMENT = /(?<=\/)([A-Za-z]{2,8}_)[A-Za-z0-9]{16,}(?=\/|$)/g;

/**
 * The path as the access line keeps it (decision 0115): a download link's capability (`/attachments/att_…`) is the
 * whole credential to the person's attachment for ten minutes, and anyone who reads the log — an operator, a log
 * service — must not get it; nor a key someone pasted into a URL by mistake. The prefix stays, so the line still says
 * what kind of link was used.
 */
export function loggedPath(path: string): string {
  return path.replace(TOKEN_SEGMENT, '$1…');
}

/** Something nobody expected: the stack to the log, a JSON 500 naming the request id to the client. */
export function failedRequest(
  frame: RequestFrame,
  e: unknown,
): { status: 500; headers: Record<string, string>; body: string } {
  frame.log.error({ err: e }, 'unhandled error');
  return {
    status: 500,
    headers: { 'content-type': 'application/json', 'x-request-id': frame.reqId },
    body: JSON.stringify(internalErrorBody(frame.reqId, e)),
  };
}

function lazyChild(log: Logger, bindings: Record<string, unknown>): Logger {
  let child: Logger | undefined;
  const get = () => (child ??= log.child(bindings));
  return {
    error: (o, m) => {
      get().error(o, m);
    },
    warn: (o, m) => {
      get().warn(o, m);
    },
    info: (o, m) => {
      get().info(o, m);
    },
    debug: (o, m) => {
      get().debug(o, m);
    },
    child: (b) => get().child(b),
  };
}
