import type { Account } from '../../core/accounts/account.ts';
import { callEntry, type AuditLog } from '../../core/audit/audit-log.ts';
import type { Principal } from '../../core/auth/principal.ts';
import type { Clock } from '../../lib/clock.ts';

/**
 * The person at the console, as the core's rules see a caller: every inbox of their account and every power, but bound
 * by the lease rules as agents are (another agent's triage pass on an inbox refuses their change to it), and recorded
 * in Activity as themselves (`session`).
 */
export function personIn(account: Account): Principal {
  return {
    accountId: account.id,
    credential: { kind: 'session', id: account.id },
    scopes: [],
    powers: null,
    inboxes: null,
    expiresAt: null,
  };
}

/**
 * One change the person made on a page, in Activity under the tool that makes it for agents: its inbox, `ok` or the
 * code it was refused with, and the undo handle of what it changed (Activity's Undo then offers it).
 */
export async function recordPersonCall(
  deps: { readonly audit: AuditLog; readonly clock: Clock },
  person: Principal,
  call: { tool: string; inboxId: string | null; outcome: string; undoId: string | null; started: number },
): Promise<void> {
  const { started, ...rest } = call;
  await deps.audit.record(
    callEntry(person, {
      ...rest,
      at: deps.clock.now(),
      durationMs: Math.round(performance.now() - started),
    }),
  );
}
