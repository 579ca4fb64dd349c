import { Hono } from 'hono';
import type { HttpEnv } from './http-env.ts';

export interface Readiness {
  /** Resolves with a reason when the service cannot serve traffic yet; undefined when ready. */
  check(): Promise<string | undefined>;
}

/** `/healthz`: the process answers. `/readyz`: the database answers and every migration is applied. */
export function healthRoutes(readiness: Readiness): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    let reason: string | undefined;
    try {
      reason = await readiness.check();
    } catch {
      reason = 'database unreachable';
    }
    c.header('Cache-Control', 'no-store');
    return reason === undefined
      ? c.json({ status: 'ready' })
      : c.json({ status: 'unavailable', reason }, 503);
  });
  return app;
}
