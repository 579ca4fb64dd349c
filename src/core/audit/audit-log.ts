import type { AccountId } from '../accounts/account.ts';

/** One agent action, as the person sees it in Settings → Activity. Never message content, never secrets. */
export interface AuditEntry {
  readonly at: Date;
  readonly accountId: AccountId;
  readonly credentialKind: 'api_key' | 'access_token';
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

export interface AuditLog {
  record(entry: AuditEntry): Promise<void>;
  /** Newest first. */
  recent(accountId: AccountId, limit: number): Promise<AuditEntry[]>;
}
