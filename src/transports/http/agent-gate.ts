import type { MiddlewareHandler } from 'hono';
import type { Account } from '../../core/accounts/account.ts';
import { agentAccess } from '../../core/accounts/plan.ts';
import { credentialKey, type BearerVerifier, type Principal } from '../../core/auth/principal.ts';
import type { RateLimiter, RateRule } from '../../core/rate-limits/rate-limiter.ts';
import type { Clock } from '../../lib/clock.ts';
import { clientIp } from './client-ip.ts';
import type { HttpEnv } from './http-env.ts';
import { jsonError, tooManyRequests } from './json-error.ts';
import { clientNetwork } from '../../lib/ip-address.ts';

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

/** Who an admitted request acts as. */
export interface Admitted {
  readonly principal: Principal;
  readonly account: Account;
}

/**
 * The one door to agent-facing routes (/api, /mcp): authenticate the bearer, then 402 when the account's plan
 * does not allow agents, then 429 per credential. Order matters: an unknown caller learns nothing about plans.
 * Framework-free, so the raw `node:http` lane for `POST /mcp` and the Hono routes share it; a refusal is the
 * response to send.
 */
export async function admitAgent(
  o: AgentGateOptions,
  authorization: string | undefined,
  clientAddress: () => string,
): Promise<Admitted | Response> {
  const token = authorization === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (token === undefined) return o.unauthenticated(authorization === undefined ? 'missing' : 'invalid');
  const verified = await o.verifier.verify(token);
  if (verified === undefined) {
    // Only failures are counted and limited per address: guessing keys from one place ends in 429s.
    const spent = await o.limiter.consume(o.failureRule, clientNetwork(clientAddress()));
    if (!spent.allowed) return tooManyRequests(spent.retryAfterSeconds);
    return o.unauthenticated('invalid');
  }
  const { principal, account } = verified;
  const access = agentAccess(account, o.clock.now());
  if (!access.allowed) return jsonError(402, 'payment_required', access.description);
  const budget = await o.limiter.consume(o.rule, credentialKey(principal));
  if (!budget.allowed) return tooManyRequests(budget.retryAfterSeconds);
  return { principal, account };
}

/** `admitAgent` as Hono middleware: sets `principal` and `account` for the handler. */
export function agentGate(o: AgentGateOptions): MiddlewareHandler<AgentEnv> {
  return async (c, next) => {
    const admitted = await admitAgent(o, c.req.header('authorization'), () => clientIp(c, o.trustProxy));
    if (!('principal' in admitted)) return admitted;
    c.set('principal', admitted.principal);
    c.set('account', admitted.account);
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
