import type { Selectable } from 'kysely';
import type { AccountId } from '../../core/accounts/account.ts';
import type {
  Draft,
  DraftStatus,
  PendingSend,
  PendingSendStatus,
  Requester,
} from '../../core/drafts/draft.ts';
import type { DraftStore, PendingSendStore } from '../../core/drafts/draft-store.ts';
import type { InboxId } from '../../core/inboxes/inbox.ts';
import type { Db } from './database.ts';
import type { CardCode, CardCodeStore, Redeemed } from '../../core/drafts/draft-cards.ts';
import type { DraftsTable, PendingSendsTable } from './schema.ts';
import { approvalColumns, CodeApprovalRows } from './code-approval-rows.ts';
import { toDate, toDateOrNull, inboxRowWrite } from './sql-errors.ts';

const toDraft = (r: Selectable<DraftsTable>): Draft => ({
  id: r.id,
  accountId: r.account_id as AccountId,
  inboxId: r.inbox_id as InboxId,
  to: r.to_text,
  subject: r.subject,
  body: r.body,
  threadId: r.thread_id,
  inReplyTo: r.in_reply_to,
  references: JSON.parse(r.references_json) as string[],
  internetMessageId: r.internet_message_id,
  folderPath: r.folder_path,
  providerDraftId: r.provider_draft_id,
  version: r.version,
  status: r.status as DraftStatus,
  createdAt: toDate(r.created_at),
  updatedAt: toDate(r.updated_at),
});

/** Where a draft's mailbox copy is, recorded: the copy is no longer being written. */
const placement = (folderPath: string, providerDraftId: string | null, now: Date) => ({
  folder_path: folderPath,
  provider_draft_id: providerDraftId,
  updated_at: now.getTime(),
  copy_pending_at: null,
});

export class KyselyDraftStore implements DraftStore {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async create(d: Draft): Promise<void> {
    await inboxRowWrite(
      this.db
        .insertInto('drafts')
        .values({
          id: d.id,
          account_id: d.accountId,
          inbox_id: d.inboxId,
          to_text: d.to,
          subject: d.subject,
          body: d.body,
          thread_id: d.threadId,
          in_reply_to: d.inReplyTo,
          references_json: JSON.stringify(d.references),
          internet_message_id: d.internetMessageId,
          folder_path: d.folderPath,
          provider_draft_id: d.providerDraftId,
          version: d.version,
          status: d.status,
          created_at: d.createdAt.getTime(),
          updated_at: d.updatedAt.getTime(),
          // A draft without its folder has its copy still to be written.
          copy_pending_at: d.folderPath === null ? d.createdAt.getTime() : null,
        })
        .execute(),
    );
  }

  async get(accountId: AccountId, id: string): Promise<Draft | undefined> {
    const r = await this.db
      .selectFrom('drafts')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return r && toDraft(r);
  }

  async getMany(accountId: AccountId, ids: readonly string[]): Promise<Draft[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('drafts')
      .selectAll()
      .where('id', 'in', [...new Set(ids)])
      .where('account_id', '=', accountId)
      .execute();
    return rows.map(toDraft);
  }

  async placed(id: string, folderPath: string, providerDraftId: string | null, now: Date): Promise<void> {
    await this.db
      .updateTable('drafts')
      .set(placement(folderPath, providerDraftId, now))
      .where('id', '=', id)
      .execute();
  }

  async edit(
    accountId: AccountId,
    id: string,
    expectedVersion: number,
    content: { to: string; subject: string; body: string },
    now: Date,
  ): Promise<Draft | undefined> {
    // Compare-and-set on the version: of two racing editors holding the same version, one wins.
    const r = await this.db
      .updateTable('drafts')
      .set((eb) => ({
        to_text: content.to,
        subject: content.subject,
        body: content.body,
        version: eb('version', '+', 1),
        updated_at: now.getTime(),
      }))
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('version', '=', expectedVersion)
      .where('status', '=', 'draft')
      .returningAll()
      .executeTakeFirst();
    return r && toDraft(r);
  }

  async setStatus(id: string, status: DraftStatus, now: Date): Promise<void> {
    await this.db
      .updateTable('drafts')
      .set({ status, updated_at: now.getTime() })
      .where('id', '=', id)
      .execute();
  }

  async beginCopy(accountId: AccountId, id: string, expectedVersion: number, now: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('drafts')
      .set({ copy_pending_at: now.getTime() })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('version', '=', expectedVersion)
      .where('status', '=', 'draft')
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  async claimPendingCopy(id: string, before: Date, now: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('drafts')
      .set({ copy_pending_at: now.getTime() })
      .where('id', '=', id)
      .where('copy_pending_at', '<', before.getTime())
      .where('status', '=', 'draft')
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  async placedByClaim(
    id: string,
    claimedAt: Date,
    folderPath: string,
    providerDraftId: string | null,
    now: Date,
  ): Promise<boolean> {
    const r = await this.db
      .updateTable('drafts')
      .set(placement(folderPath, providerDraftId, now))
      .where('id', '=', id)
      .where('copy_pending_at', '=', claimedAt.getTime())
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  async deleteFinished(finishedBefore: Date, untouchedBefore: Date): Promise<number> {
    // Their approvals and card codes go by cascade.
    const r = await this.db
      .deleteFrom('drafts')
      .where((eb) =>
        eb.or([
          eb.and([
            eb('status', 'in', ['sent', 'discarded']),
            eb('updated_at', '<', finishedBefore.getTime()),
          ]),
          eb.and([
            eb('status', '=', 'draft'),
            eb('updated_at', '<', untouchedBefore.getTime()),
            eb('copy_pending_at', 'is', null),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('pending_sends')
                  .select('pending_sends.id')
                  .whereRef('pending_sends.draft_id', '=', 'drafts.id')
                  .where('pending_sends.status', '=', 'sending'),
              ),
            ),
          ]),
        ]),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async pendingCopies(before: Date, limit: number): Promise<Draft[]> {
    const rows = await this.db
      .selectFrom('drafts')
      .selectAll()
      .where('copy_pending_at', '<', before.getTime()) // drafts_copy_pending_idx
      .where('status', '=', 'draft')
      .orderBy('copy_pending_at')
      .limit(limit)
      .execute();
    return rows.map(toDraft);
  }
}

const toPendingSend = (r: Selectable<PendingSendsTable>): PendingSend => ({
  id: r.id,
  accountId: r.account_id as AccountId,
  draftId: r.draft_id,
  draftVersion: r.draft_version,
  codeHash: r.code_hash,
  attempts: r.attempts,
  status: r.status as PendingSendStatus,
  createdAt: toDate(r.created_at),
  expiresAt: toDate(r.expires_at),
  claimedAt: toDateOrNull(r.claimed_at),
  finishedAt: toDateOrNull(r.finished_at),
  error: r.error,
  requestedBy: r.requested_by === null ? null : (JSON.parse(r.requested_by) as Requester),
});

/** Approvals to send one draft version; the lifecycle they share with unsubscribe requests is CodeApprovalRows'. */
export class KyselyPendingSendStore
  extends CodeApprovalRows<Selectable<PendingSendsTable>, PendingSend>
  implements PendingSendStore
{
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    super(db, 'pending_sends', 'sending', toPendingSend);
    this.db = db.kysely;
  }

  async create(s: PendingSend): Promise<void> {
    await this.db
      .insertInto('pending_sends')
      .values({ ...approvalColumns(s), draft_id: s.draftId, draft_version: s.draftVersion })
      .execute();
  }

  async unclaim(id: string): Promise<void> {
    await this.db
      .updateTable('pending_sends')
      .set({ status: 'pending', claimed_at: null })
      .where('id', '=', id)
      .where('status', '=', 'sending')
      .execute();
  }

  async finish(
    id: string,
    status: Extract<PendingSendStatus, 'sent' | 'unknown'>,
    now: Date,
    error: string | null,
  ): Promise<void> {
    await this.db
      .updateTable('pending_sends')
      .set({ status, finished_at: now.getTime(), error })
      .where('id', '=', id)
      .where('status', '=', 'sending')
      .execute();
  }
}

/** Card codes: one conditional UPDATE redeems, so racing clicks send once. */
export class KyselyCardCodeStore implements CardCodeStore {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async issue(c: CardCode): Promise<void> {
    await this.db
      .insertInto('card_codes')
      .values({
        hash: c.hash,
        account_id: c.accountId,
        draft_id: c.draftId,
        draft_version: c.draftVersion,
        created_at: c.createdAt.getTime(),
        expires_at: c.expiresAt.getTime(),
        used_at: null,
      })
      .execute();
  }

  async redeem(accountId: AccountId, hash: string, now: Date): Promise<Redeemed> {
    const r = await this.db
      .updateTable('card_codes')
      .set({ used_at: now.getTime() })
      .where('hash', '=', hash)
      .where('account_id', '=', accountId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now.getTime())
      .returning(['draft_id', 'draft_version'])
      .executeTakeFirst();
    if (r !== undefined) return { ok: true, draftId: r.draft_id, draftVersion: r.draft_version };
    const row = await this.db
      .selectFrom('card_codes')
      .select(['used_at'])
      .where('hash', '=', hash)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (row === undefined) return { ok: false, reason: 'unknown' };
    return { ok: false, reason: row.used_at === null ? 'expired' : 'used' };
  }

  async deleteExpired(before: Date): Promise<number> {
    const r = await this.db
      .deleteFrom('card_codes')
      .where('expires_at', '<', before.getTime())
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
