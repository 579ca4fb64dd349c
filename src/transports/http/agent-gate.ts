import type { MiddlewareHandler } from 'hono';
import type { Account } from '../../core/accounts/account.ts';
import { agentAccess } from '../../core/accounts/plan.ts';
import { credentialKey, type BearerVerifier, type Principal } from '../../core/auth/principal.ts';
import type { RateLimiter, RateRule } from '../../core/rate-limits/rate-limiter.ts';
import type { Clock } from '../../lib/clock.ts';
import { clientIp } from './client-ip.ts';
import type { HttpEnv } from './http-env.ts';
import { jsonError, tooManyRequests } from './json-error.ts';

export interface AgentEnv extends HttpEnv {
  Variables: HttpEnv['Variables'] & { principal: Principal; account: Account };
}

export interface AgentGateOptions {
  readonly verifier: BearerVerifier;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly trustProxy: boolean;
  /** Per credential. */
  readonly rule: RateRule;
  /** Per client address, counting only failed authentications (guessing keys). */
  readonly failureRule: RateRule;
  /** The realm's own 401: each surface names its errors and challenge differently (contract §7). */
  readonly unauthenticated: (reason: 'missing' | 'invalid') => Response;
}

/**
 * The one door to agent-facing routes (/api, /mcp): authenticate the bearer, then 402 when the account's plan
 * does not allow agents, then 429 per credential. Order matters: an unknown caller learns nothing about plans.
 */
export function agentGate(o: AgentGateOptions): MiddlewareHandler<AgentEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const token = header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (token === undefined) {
      if (header !== undefined) return o.unauthenticated('invalid');
      return o.unauthenticated('missing');
    }
    const verified = await o.verifier.verify(token);
    if (verified === undefined) {
      // Only failures are counted and limited per address: guessing keys from one place ends in 429s.
      const ip = clientIp(c, o.trustProxy);
      const spent = await o.limiter.consume(o.failureRule, ip);
      if (!spent.allowed) return tooManyRequests(spent.retryAfterSeconds);
      return o.unauthenticated('invalid');
    }
    const { principal, account } = verified;
    const access = agentAccess(account, o.clock.now());
    if (!access.allowed) return jsonError(402, 'payment_required', access.description);
    const budget = await o.limiter.consume(o.rule, credentialKey(principal));
    if (!budget.allowed) return tooManyRequests(budget.retryAfterSeconds);
    c.set('principal', principal);
    c.set('account', account);
    await next();
    return undefined;
  };
}

/** Routes any bearer to the verifier its prefix names (`itk_` keys, `ita_` access tokens). */
export function prefixVerifier(byPrefix: Record<string, BearerVerifier>): BearerVerifier {
  return {
    verify: (token) => {
      for (const [prefix, v] of Object.entries(byPrefix))
        if (token.startsWith(prefix)) return v.verify(token);
      return Promise.resolve(undefined);
    },
  };
}
