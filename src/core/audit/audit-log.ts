import type { AccountId } from '../accounts/account.ts';
import type { Principal } from '../auth/principal.ts';

/** One agent action, as the person sees it in Settings → Activity. Never message content, never secrets. */
export interface AuditEntry {
  readonly at: Date;
  readonly accountId: AccountId;
  /** `session`: the person themselves, from the console (an undo on the Activity page). */
  readonly credentialKind: 'api_key' | 'access_token' | 'session';
  readonly credentialId: string;
  /** The OAuth client, for access tokens. */
  readonly clientId: string | null;
  readonly tool: string;
  readonly inboxId: string | null;
  /** `ok`, or the tool error code (`lease_held`, `invalid_arguments`, …). */
  readonly outcome: string;
  readonly undoId: string | null;
  readonly durationMs: number;
}

/** What a call was, beside who made it: the rest of its row. */
export type CallRecord = Omit<AuditEntry, 'accountId' | 'credentialKind' | 'credentialId' | 'clientId'>;

/** The row for one call by this principal: its account, its credential and, for an access token, its OAuth client. */
export function callEntry(principal: Principal, call: CallRecord): AuditEntry {
  const c = principal.credential;
  return {
    ...call,
    accountId: principal.accountId,
    credentialKind: c.kind,
    credentialId: c.id,
    clientId: c.kind === 'access_token' ? c.clientId : null,
  };
}

export interface AuditLog {
  record(entry: AuditEntry): Promise<void>;
  /** Newest first. */
  recent(accountId: AccountId, limit: number): Promise<AuditEntry[]>;
  /** One page of an account's entries, newest first, narrowed by inbox, credential or tool; with the total. */
  page(accountId: AccountId, q: AuditQuery): Promise<{ entries: AuditEntry[]; total: number }>;
  /** Removes every account's entries recorded before `before` (the hourly sweep, decision 0068); how many. */
  deleteBefore(before: Date): Promise<number>;
}

export interface AuditQuery {
  readonly inboxId?: string;
  readonly credentialId?: string;
  readonly tool?: string;
  readonly limit: number;
  readonly offset: number;
}
