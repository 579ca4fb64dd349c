import type { Context } from 'hono';
import type { Client } from '../../core/sessions/session-service.ts';
import { clientIp } from '../http/client-ip.ts';
import { deviceCookieName, readCookie } from './cookies.ts';
import type { WebDeps } from './web-deps.ts';
import type { WebEnv } from './web-env.ts';

/** Who is trying a password, as the failure budgets count them (decision 0025): address, browser, device token. */
export function passwordClient(c: Context<WebEnv>, deps: Pick<WebDeps, 'trustProxy' | 'cookies'>): Client {
  return {
    ip: clientIp(c, deps.trustProxy),
    userAgent: c.req.header('user-agent') ?? null,
    device: readCookie(c, deviceCookieName(deps.cookies)),
  };
}
