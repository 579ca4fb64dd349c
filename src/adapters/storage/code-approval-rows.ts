import type { Kysely } from 'kysely';
import type { AccountId } from '../../core/accounts/account.ts';
import type { PendingSend } from '../../core/drafts/draft.ts';
import type { Db } from './database.ts';
import type { PendingUnsubscribesTable } from './schema.ts';
import { isUniqueViolation } from './sql-errors.ts';

/** The columns every table of approvals redeemed by code has (`pending_sends`, `pending_unsubscribes`). */
type ApprovalColumns = Pick<
  PendingUnsubscribesTable,
  | 'id'
  | 'account_id'
  | 'code_hash'
  | 'attempts'
  | 'status'
  | 'created_at'
  | 'expires_at'
  | 'claimed_at'
  | 'finished_at'
  | 'error'
  | 'requested_by'
>;

/** What every approval of the core carries under the same names (a pending send, a pending unsubscribe request). */
type ApprovalFields = Pick<
  PendingSend,
  | 'id'
  | 'accountId'
  | 'codeHash'
  | 'attempts'
  | 'createdAt'
  | 'expiresAt'
  | 'claimedAt'
  | 'finishedAt'
  | 'error'
  | 'requestedBy'
> & { readonly status: string };

/** The shared columns of a new approval's row, for the table's own insert to complete. */
export function approvalColumns(a: ApprovalFields): ApprovalColumns {
  return {
    id: a.id,
    account_id: a.accountId,
    code_hash: a.codeHash,
    attempts: a.attempts,
    status: a.status,
    created_at: a.createdAt.getTime(),
    expires_at: a.expiresAt.getTime(),
    claimed_at: a.claimedAt?.getTime() ?? null,
    finished_at: a.finishedAt?.getTime() ?? null,
    error: a.error,
    requested_by: a.requestedBy === null ? null : JSON.stringify(a.requestedBy),
  };
}

/**
 * The statements of an approval's life that do not depend on what it approves (checkApprovalCode's store, the
 * person's Waiting list, the claim and the sweep of stranded claims), for either table. Every transition is one
 * conditional UPDATE, atomic on SQLite and PostgreSQL alike: of racing callers exactly one changes the row.
 */
export abstract class CodeApprovalRows<Row extends ApprovalColumns, Approval> {
  /** The database seen as one table of the shared columns: a statement here can name no other column. */
  protected readonly rows: Kysely<{ approvals: ApprovalColumns }>;
  private readonly table: 'approvals';
  private readonly inFlight: string;
  private readonly toApproval: (row: Row) => Approval;

  /**
   * @param inFlight the status a claimed approval has while its action runs (`sending`, `posting`)
   * @param toApproval a whole row of the table as the core's type
   */
  protected constructor(
    db: Db,
    table: 'pending_sends' | 'pending_unsubscribes',
    inFlight: string,
    toApproval: (row: Row) => Approval,
  ) {
    this.inFlight = inFlight;
    this.toApproval = toApproval;
    this.rows = db.kysely as unknown as Kysely<{ approvals: ApprovalColumns }>;
    this.table = table as unknown as 'approvals';
  }

  /** `selectAll` reads every column of the real table, so the row is the table's whole row. */
  private approval(row: ApprovalColumns): Approval {
    return this.toApproval(row as Row);
  }

  async get(accountId: AccountId, id: string): Promise<Approval | undefined> {
    const r = await this.rows
      .selectFrom(this.table)
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return r && this.approval(r);
  }

  async waiting(accountId: AccountId, now: Date, limit: number): Promise<Approval[]> {
    const rows = await this.rows
      .selectFrom(this.table)
      .selectAll()
      .where('account_id', '=', accountId)
      .where('status', '=', 'pending')
      .where('expires_at', '>', now.getTime())
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => this.approval(r));
  }

  async discard(accountId: AccountId, id: string): Promise<boolean> {
    const r = await this.rows
      .updateTable(this.table)
      .set({ status: 'discarded' })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  async recordFailure(id: string, lockAfter: number): Promise<number> {
    // The right-hand sides read the row as it was, so `attempts + 1` is the new count in both places. A locked
    // approval counts no more: a wrong code that raced the one that locked it is refused as if it came after — the
    // check it passed would have refused it then, without counting it.
    const r = await this.rows
      .updateTable(this.table)
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        status: eb
          .case()
          .when(eb.and([eb(eb('attempts', '+', 1), '>=', lockAfter), eb('status', '=', 'pending')]))
          .then('locked')
          .else(eb.ref('status'))
          .end(),
      }))
      .where('id', '=', id)
      .where('status', '<>', 'locked')
      .returning('attempts')
      .executeTakeFirst();
    return r?.attempts ?? lockAfter;
  }

  async claim(id: string, now: Date): Promise<boolean> {
    try {
      const r = await this.rows
        .updateTable(this.table)
        .set({ status: this.inFlight, claimed_at: now.getTime() })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now.getTime())
        .executeTakeFirst();
      return r.numUpdatedRows === 1n;
    } catch (e) {
      // Another approval for the same thing holds it (sends: a unique index allows one in flight per draft).
      if (isUniqueViolation(e)) return false;
      throw e;
    }
  }

  /**
   * Approvals whose time was over before `before`: finished then, or never used and expired then (waiting, discarded,
   * locked — their `finished_at` is empty). One in flight is the stranded sweep's, never this one's.
   */
  async deleteEnded(before: Date): Promise<number> {
    const r = await this.rows
      .deleteFrom(this.table)
      .where('status', '<>', this.inFlight)
      .where((eb) => eb(eb.fn.coalesce('finished_at', 'expires_at'), '<', before.getTime()))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Claimed before `before` and never finished: left behind by a process that died mid-action. Oldest first. */
  async stranded(before: Date): Promise<Approval[]> {
    const rows = await this.rows
      .selectFrom(this.table)
      .selectAll()
      .where('status', '=', this.inFlight) // <table>_stranded_idx
      .where('claimed_at', '<', before.getTime())
      .orderBy('claimed_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => this.approval(r));
  }
}
