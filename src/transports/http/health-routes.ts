import { Hono } from 'hono';
import type { HttpEnv } from './http-env.ts';

export interface Readiness {
  /** Resolves with a reason when the service cannot serve traffic yet; undefined when ready. */
  check(): Promise<string | undefined>;
}

/**
 * How long `/readyz` waits for its check: a database that does not answer (a node cut off from it without a word) is
 * reported as such within a load balancer's usual health-check timeout, not after the statement's own deadline.
 */
export const READY_WITHIN_MS = 4000;

/** `/healthz`: the process answers. `/readyz`: the database answers and every migration is applied. */
export function healthRoutes(readiness: Readiness, readyWithinMs = READY_WITHIN_MS): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    let reason: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => {
        resolve(`no answer within ${String(readyWithinMs / 1000)} s`);
      }, readyWithinMs);
    });
    try {
      reason = await Promise.race([readiness.check(), late]);
    } catch {
      reason = 'database unreachable';
    } finally {
      clearTimeout(timer);
    }
    c.header('Cache-Control', 'no-store');
    return reason === undefined
      ? c.json({ status: 'ready' })
      : c.json({ status: 'unavailable', reason }, 503);
  });
  return app;
}
