import type { Hono, MiddlewareHandler } from 'hono';
import type { RateLimiter, RateRule } from '../../core/rate-limits/rate-limiter.ts';
import { clientNetwork } from '../../lib/ip-address.ts';
import { clientIp } from './client-ip.ts';
import type { HttpEnv } from './http-env.ts';
import { tooManyRequests } from './json-error.ts';

/**
 * What anyone may ask without signing in, counted per client network (RATE_LIMIT_ANONYMOUS_PER_MINUTE): the pages a
 * person signs in or sets up on, and the authorization server's endpoints.
 */
export const ANONYMOUS_PATHS = [
  '/setup',
  '/signin',
  '/signin/code',
  '/signin/passkey',
  '/signup',
  '/invite',
  '/reset',
  '/oauth/authorize',
  '/oauth/register',
  '/oauth/token',
  '/oauth/revoke',
  '/connect/*',
] as const;

/**
 * The limits on anonymous requests, on the root app before any route (decision 0122): Hono runs a path's handlers in
 * the order they were added, so a limit added after the route that answers stops nothing — as it was for the four
 * OAuth endpoints, answered by routes the web app's limit came after.
 *
 * A registration is also counted per hour, at the minute's number: an agent registers once when it is connected, and
 * each registration is a row kept until the sweep finds nothing naming it, so this bounds what a stranger can make the
 * database keep.
 */
export function registerAnonymousLimits(
  app: Hono<HttpEnv>,
  deps: { limiter: RateLimiter; trustProxy: boolean; perMinute: number },
): void {
  const limit =
    (rule: RateRule): MiddlewareHandler<HttpEnv> =>
    async (c, next) => {
      const d = await deps.limiter.consume(rule, clientNetwork(clientIp(c, deps.trustProxy)));
      if (!d.allowed) return tooManyRequests(d.retryAfterSeconds);
      await next();
      return undefined;
    };
  const perMinute = limit({ name: 'anon-ip', points: deps.perMinute, windowSeconds: 60 });
  for (const path of ANONYMOUS_PATHS) app.use(path, perMinute);
  app.post('/oauth/register', limit({ name: 'register-ip', points: deps.perMinute, windowSeconds: 3600 }));
}
