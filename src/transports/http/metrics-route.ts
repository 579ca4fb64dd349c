import type { Hono } from 'hono';
import { timingSafeEqualStrings } from '../../lib/secret-token.ts';
import type { HttpEnv } from './http-env.ts';

export interface MetricsEndpoint {
  /** Unset: the endpoint is off (404), so a service on the internet never publishes its internals by default. */
  readonly token: string | undefined;
  render(): Promise<{ contentType: string; body: string }>;
}

/** `GET /metrics`: Prometheus text for a scraper holding `METRICS_TOKEN` as its bearer token. */
export function registerMetricsRoute(app: Hono<HttpEnv>, m: MetricsEndpoint): void {
  app.get('/metrics', async (c) => {
    if (m.token === undefined)
      return c.json({ error: 'not_found', error_description: 'No such route.' }, 404);
    const given = /^Bearer (\S+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    if (given === undefined || !timingSafeEqualStrings(given, m.token)) {
      c.header('WWW-Authenticate', 'Bearer realm="metrics"');
      return c.json(
        {
          error: 'invalid_token',
          error_description: 'Send METRICS_TOKEN as a bearer token to scrape /metrics.',
        },
        401,
      );
    }
    const { contentType, body } = await m.render();
    c.header('Cache-Control', 'no-store');
    return c.body(body, 200, { 'content-type': contentType });
  });
}
