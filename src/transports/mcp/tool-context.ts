import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Account } from '../../core/accounts/account.ts';
import type { Principal } from '../../core/auth/principal.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { ToolContext } from './tool-definition.ts';
import type { ToolServices } from './tool-services.ts';
import { newMarker } from './untrusted-marks.ts';

/** Who is calling, carried through the SDK as `AuthInfo.extra` so both dispatch paths see the same identity. */
export interface Caller {
  readonly principal: Principal;
  readonly account: Account;
  readonly log: Logger;
}

export function toAuthInfo(caller: Caller): AuthInfo {
  return {
    token: '', // the bearer never travels past the gate
    clientId:
      caller.principal.credential.kind === 'access_token'
        ? caller.principal.credential.clientId
        : caller.principal.credential.id,
    scopes: [...caller.principal.scopes],
    expiresAt: Math.floor((caller.principal.expiresAt?.getTime() ?? Date.now() + 3_600_000) / 1000),
    extra: { caller },
  };
}

export function callerFrom(authInfo: AuthInfo | undefined): Caller | undefined {
  const caller = authInfo?.extra?.['caller'];
  return caller === undefined ? undefined : (caller as Caller);
}

/** The caller's context for one call; the registry gives each call markers of its own. */
export function toolContext(caller: Caller, services: ToolServices, clock: Clock): ToolContext {
  return {
    principal: caller.principal,
    account: caller.account,
    services,
    clock,
    log: caller.log,
    marker: newMarker(),
  };
}
