import type { Account } from '../../core/accounts/account.ts';
import type { Principal } from '../../core/auth/principal.ts';

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
