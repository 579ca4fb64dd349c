import type { Selectable } from 'kysely';
import type { AccountId } from '../../core/accounts/account.ts';
import type { AuditEntry } from '../../core/audit/audit-log.ts';
import type { AuditLogTable } from './schema.ts';
import { toDate } from './sql-errors.ts';

/**
 * An entry as an `audit_log` row, and back: the main database's table (kysely-audit-log.ts) and the SQLite audit
 * file (audit-file.ts) store the same rows.
 */
export const toAuditRow = (e: AuditEntry) => ({
  at: e.at.getTime(),
  account_id: e.accountId,
  credential_kind: e.credentialKind,
  credential_id: e.credentialId,
  client_id: e.clientId,
  tool: e.tool,
  inbox_id: e.inboxId,
  outcome: e.outcome,
  undo_id: e.undoId,
  duration_ms: e.durationMs,
});

export const fromAuditRow = (r: Selectable<AuditLogTable>): AuditEntry => ({
  at: toDate(r.at),
  accountId: r.account_id as AccountId,
  credentialKind: r.credential_kind as AuditEntry['credentialKind'],
  credentialId: r.credential_id,
  clientId: r.client_id,
  tool: r.tool,
  inboxId: r.inbox_id,
  outcome: r.outcome,
  undoId: r.undo_id,
  durationMs: r.duration_ms,
});
