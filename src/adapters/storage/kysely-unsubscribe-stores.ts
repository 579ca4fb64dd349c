import { sql, type Selectable } from 'kysely';
import type { AccountId } from '../../core/accounts/account.ts';
import type { InboxId } from '../../core/inboxes/inbox.ts';
import type { MessageId } from '../../core/messages/message.ts';
import type { ListSender, MailingListIndex } from '../../core/unsubscribe/mailing-list-index.ts';
import type { PendingUnsubscribeStore } from '../../core/unsubscribe/pending-unsubscribe-store.ts';
import type {
  PendingUnsubscribe,
  PendingUnsubscribeStatus,
  UnsubscribeResult,
} from '../../core/unsubscribe/pending-unsubscribe.ts';
import type { Db } from './database.ts';
import type { PendingUnsubscribesTable } from './schema.ts';
import { approvalColumns, CodeApprovalRows } from './code-approval-rows.ts';
import { toDate, inboxRowWrite } from './sql-errors.ts';
import type { Requester } from '../../core/drafts/draft.ts';

const toPending = (r: Selectable<PendingUnsubscribesTable>): PendingUnsubscribe => ({
  id: r.id,
  accountId: r.account_id as AccountId,
  inboxId: r.inbox_id as InboxId,
  messageId: r.message_id as MessageId,
  senderKey: r.sender_key,
  senderAddress: r.sender_address,
  url: r.url,
  codeHash: r.code_hash,
  attempts: r.attempts,
  status: r.status as PendingUnsubscribeStatus,
  createdAt: toDate(r.created_at),
  expiresAt: toDate(r.expires_at),
  claimedAt: r.claimed_at === null ? null : toDate(r.claimed_at),
  finishedAt: r.finished_at === null ? null : toDate(r.finished_at),
  httpStatus: r.http_status,
  error: r.error,
  requestedBy: r.requested_by === null ? null : (JSON.parse(r.requested_by) as Requester),
});

const FINAL = ['done', 'rejected', 'refused', 'unknown'] as const;

/** Approvals to unsubscribe; the lifecycle they share with sends is CodeApprovalRows'. */
export class KyselyPendingUnsubscribeStore
  extends CodeApprovalRows<Selectable<PendingUnsubscribesTable>, PendingUnsubscribe>
  implements PendingUnsubscribeStore
{
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    super(db, 'pending_unsubscribes', 'posting', toPending);
    this.db = db.kysely;
  }

  async create(p: PendingUnsubscribe): Promise<void> {
    await inboxRowWrite(
      this.db
        .insertInto('pending_unsubscribes')
        .values({
          ...approvalColumns(p),
          inbox_id: p.inboxId,
          message_id: p.messageId,
          sender_key: p.senderKey,
          sender_address: p.senderAddress,
          url: p.url,
          http_status: p.httpStatus,
        })
        .execute(),
    );
  }

  async expireEarlier(
    newer: Pick<PendingUnsubscribe, 'id' | 'inboxId' | 'senderKey' | 'createdAt'>,
    now: Date,
  ): Promise<number> {
    const at = newer.createdAt.getTime();
    const r = await this.db
      .updateTable('pending_unsubscribes')
      .set({ expires_at: now.getTime() })
      .where('inbox_id', '=', newer.inboxId)
      .where('sender_key', '=', newer.senderKey)
      .where('status', '=', 'pending')
      .where('expires_at', '>', now.getTime())
      .where('created_at', '<=', at)
      .where('id', '<>', newer.id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  async finish(
    id: string,
    status: (typeof FINAL)[number],
    now: Date,
    outcome: { httpStatus: number | null; error: string | null },
  ): Promise<void> {
    await this.db
      .updateTable('pending_unsubscribes')
      .set({ status, finished_at: now.getTime(), http_status: outcome.httpStatus, error: outcome.error })
      .where('id', '=', id)
      .where('status', '=', 'posting')
      .execute();
  }

  async results(accountId: AccountId, inboxIds: readonly InboxId[]): Promise<UnsubscribeResult[]> {
    if (inboxIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('pending_unsubscribes')
      .select(['inbox_id', 'sender_key', 'status', 'finished_at'])
      .where('account_id', '=', accountId)
      .where('inbox_id', 'in', [...inboxIds])
      .where('status', 'in', [...FINAL])
      .orderBy('finished_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    // Later rows overwrite earlier ones: the latest finished request per sender wins.
    const latest = new Map<string, UnsubscribeResult>();
    for (const r of rows) {
      latest.set(`${r.inbox_id}\u0000${r.sender_key}`, {
        inboxId: r.inbox_id as InboxId,
        senderKey: r.sender_key,
        status: r.status as UnsubscribeResult['status'],
        finishedAt: toDate(r.finished_at ?? 0),
      });
    }
    return [...latest.values()];
  }

  /** As for any approval, except each sender's latest finished request: what `results` reads. */
  override async deleteEnded(before: Date): Promise<number> {
    const r = await this.db
      .deleteFrom('pending_unsubscribes as p')
      .where('p.status', '<>', 'posting')
      .where((eb) => eb(eb.fn.coalesce('p.finished_at', 'p.expires_at'), '<', before.getTime()))
      .where((eb) =>
        eb.or([
          eb('p.status', 'not in', [...FINAL]),
          eb.exists(
            eb
              .selectFrom('pending_unsubscribes as q')
              .select('q.id')
              .whereRef('q.inbox_id', '=', 'p.inbox_id')
              .whereRef('q.sender_key', '=', 'p.sender_key')
              .where('q.status', 'in', [...FINAL])
              .where((e) =>
                e.or([
                  e('q.finished_at', '>', e.ref('p.finished_at')),
                  e.and([e('q.finished_at', '=', e.ref('p.finished_at')), e('q.id', '>', e.ref('p.id'))]),
                ]),
              ),
          ),
        ]),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}

/**
 * List mail grouped per (inbox, sender key), where the key is the List-Id or else the From address. One grouped
 * statement for the page and its total, one for the latest message of each sender on the page (the one to check
 * and propose from, and whose From line the row shows).
 */
export class KyselyMailingListIndex implements MailingListIndex {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async senders(
    inboxIds: readonly InboxId[],
    page: { limit: number; offset: number },
  ): Promise<{ rows: ListSender[]; total: number }> {
    if (inboxIds.length === 0) return { rows: [], total: 0 };
    const key = sql<string>`coalesce(list_id, from_address)`;
    const grouped = this.db
      .selectFrom('messages')
      .where('inbox_id', 'in', [...inboxIds])
      .where((eb) => eb.or([eb('list_id', 'is not', null), eb('list_unsubscribe', 'is not', null)]))
      .groupBy(['inbox_id', key]);
    const [counted, groups] = await Promise.all([
      this.db
        .selectFrom(grouped.select(sql<number>`1`.as('one')).as('g'))
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
      grouped
        .select([
          'inbox_id',
          key.as('sender_key'),
          sql<number>`count(*)`.as('messages'),
          sql<number>`sum(unread)`.as('unread'),
          sql<number>`max(date)`.as('last_seen'),
          sql<number>`max(case when list_unsubscribe like '%<https:%' and list_unsubscribe_post = 1 then 1 else 0 end)`.as(
            'one_click',
          ),
        ])
        .orderBy('last_seen', 'desc')
        .orderBy('inbox_id')
        .orderBy('sender_key')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
    ]);
    if (groups.length === 0) return { rows: [], total: counted.n };
    // Each group's latest message (one with an unsubscribe header first), for the whole page in one statement.
    const ranked = this.db
      .selectFrom('messages')
      .select([
        'id',
        'inbox_id',
        'from_address',
        'from_name',
        'list_id',
        key.as('sender_key'),
        sql<number>`row_number() over (partition by inbox_id, coalesce(list_id, from_address) order by case when list_unsubscribe is null then 1 else 0 end, date desc, id desc)`.as(
          'rn',
        ),
      ])
      .where('inbox_id', 'in', [...new Set(groups.map((g) => g.inbox_id))])
      .where(key, 'in', [...new Set(groups.map((g) => g.sender_key))])
      .where((eb) => eb.or([eb('list_id', 'is not', null), eb('list_unsubscribe', 'is not', null)]));
    const latest = new Map(
      (await this.db.selectFrom(ranked.as('r')).selectAll().where('rn', '=', 1).execute()).map((r) => [
        `${r.inbox_id}\u0000${r.sender_key}`,
        r,
      ]),
    );
    const rows: ListSender[] = [];
    for (const g of groups) {
      const m = latest.get(`${g.inbox_id}\u0000${g.sender_key}`);
      if (m === undefined) continue; // removed between the two statements
      rows.push({
        inboxId: g.inbox_id as InboxId,
        senderKey: g.sender_key,
        listId: m.list_id,
        address: m.from_address,
        name: m.from_name,
        messages: g.messages,
        unread: g.unread,
        lastSeen: toDate(g.last_seen),
        oneClickAdvertised: g.one_click === 1,
        latestMessageId: m.id as MessageId,
      });
    }
    return { rows, total: counted.n };
  }
}
