import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { AccountId } from '../../core/accounts/account.ts';
import type { InboxId } from '../../core/inboxes/inbox.ts';
import type { FolderId } from '../../core/messages/folder.ts';
import type { MessageSummary } from '../../core/messages/message.ts';
import type {
  JunkSource,
  Resolution,
  ScreenedDigest,
  ScreenedRow,
  Screening,
  ScreeningSource,
  Verdict,
} from '../../core/screening/screening.ts';
import type { ScreeningItem, ScreeningStore } from '../../core/screening/screening-store.ts';
import { newId } from '../../lib/random.ts';
import type { Db } from './database.ts';
import { toSummary } from './kysely-message-store.ts';
import type { ScreeningsTable } from './schema.ts';
import { toDate, toDateOrNull, inboxRowWrite } from './sql-errors.ts';

const toScreening = (r: Selectable<ScreeningsTable>): Screening => ({
  id: r.id,
  accountId: r.account_id as AccountId,
  inboxId: r.inbox_id,
  messageId: r.message_id,
  senderAddress: r.sender_address,
  offeredAt: toDateOrNull(r.offered_at),
  offerExpiresAt: toDateOrNull(r.offer_expires_at),
  verdict: r.verdict as Verdict | null,
  reason: r.reason,
  source: r.source as ScreeningSource,
  decidedAt: toDateOrNull(r.decided_at),
  resolution: r.resolution as Resolution | null,
  resolvedAt: toDateOrNull(r.resolved_at),
  undoId: r.undo_id,
});

export class KyselyScreeningStore implements ScreeningStore {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async unscreened(
    inboxId: InboxId,
    folderId: FolderId,
    page: { limit: number; offset: number },
  ): Promise<MessageSummary[]> {
    const rows = await this.db
      .selectFrom('messages')
      .selectAll('messages')
      .where('messages.inbox_id', '=', inboxId)
      .where('messages.folder_id', '=', folderId)
      .where('messages.starred', '=', 0)
      .where('messages.labels_json', '=', '[]')
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('screenings')
              .select('screenings.id')
              .whereRef('screenings.inbox_id', '=', 'messages.inbox_id')
              .whereRef('screenings.message_id', '=', 'messages.id')
              .where('screenings.verdict', 'is not', null),
          ),
        ),
      )
      .orderBy('messages.date', 'desc')
      .orderBy('messages.position', 'desc')
      .orderBy('messages.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return rows.map(toSummary);
  }

  async offer(items: readonly ScreeningItem[], now: Date, expiresAt: Date): Promise<void> {
    const offered = { offered_at: now.getTime(), offer_expires_at: expiresAt.getTime() };
    await this.writeUndecided(items, { ...offered, source: 'agent' }, offered);
  }

  async decide(
    accountId: AccountId,
    inboxId: string,
    messageId: string,
    verdict: Verdict,
    reason: string | null,
    now: Date,
  ): Promise<Screening | undefined> {
    const r = await this.db
      .updateTable('screenings')
      .set({ verdict, reason, decided_at: now.getTime(), source: 'agent' })
      .where('account_id', '=', accountId)
      .where('inbox_id', '=', inboxId)
      .where('message_id', '=', messageId)
      .where('verdict', 'is', null)
      .where('offer_expires_at', '>', now.getTime())
      .returningAll()
      .executeTakeFirst();
    return r && toScreening(r);
  }

  async undecide(id: string): Promise<void> {
    await this.db
      .updateTable('screenings')
      .set({ verdict: null, reason: null, decided_at: null, undo_id: null })
      .where('id', '=', id)
      .execute();
  }

  async recordExempt(items: readonly ScreeningItem[], now: Date): Promise<void> {
    const settled = { verdict: 'fine', source: 'exempt', decided_at: now.getTime() } as const;
    await this.writeUndecided(items, settled, settled);
  }

  /** A new row for each message with `values`; a message whose row has no verdict yet gets `update` instead. */
  private async writeUndecided(
    items: readonly ScreeningItem[],
    values: Omit<Insertable<ScreeningsTable>, keyof ReturnType<typeof newRow>>,
    update: Updateable<ScreeningsTable>,
  ): Promise<void> {
    if (items.length === 0) return;
    await inboxRowWrite(
      this.db
        .insertInto('screenings')
        .values(items.map((i) => ({ ...newRow(i), ...values })))
        .onConflict((oc) =>
          oc.columns(['inbox_id', 'message_id']).doUpdateSet(update).where('screenings.verdict', 'is', null),
        )
        .execute(),
    );
  }

  async recordBlocked(
    items: readonly (ScreeningItem & { reason: string })[],
    now: Date,
  ): Promise<Screening[]> {
    const out: Screening[] = [];
    for (const i of items) {
      const r = await inboxRowWrite(
        this.db
          .insertInto('screenings')
          .values({
            ...newRow(i),
            verdict: 'junk',
            reason: i.reason,
            source: 'blocklist',
            decided_at: now.getTime(),
          })
          .onConflict((oc) =>
            oc
              .columns(['inbox_id', 'message_id'])
              .doUpdateSet({
                verdict: 'junk',
                reason: i.reason,
                source: 'blocklist',
                decided_at: now.getTime(),
              })
              .where('screenings.verdict', 'is', null),
          )
          .returningAll()
          .executeTakeFirst(),
      );
      if (r !== undefined) out.push(toScreening(r));
    }
    return out;
  }

  async get(accountId: AccountId, inboxId: string, id: string): Promise<Screening | undefined> {
    const r = await this.db
      .selectFrom('screenings')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('inbox_id', '=', inboxId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r && toScreening(r);
  }

  async resolve(id: string, resolution: Resolution, now: Date): Promise<void> {
    await this.db
      .updateTable('screenings')
      .set({ resolution, resolved_at: now.getTime() })
      .where('id', '=', id)
      .execute();
  }

  async setUndo(ids: readonly string[], undoId: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('screenings')
      .set({ undo_id: undoId })
      .where('id', 'in', [...ids])
      .execute();
  }

  /** Junk of these inboxes decided since `since` whose message sits in a folder with the screened role. */
  private waiting(inboxIds: readonly string[], since: Date) {
    return this.db
      .selectFrom('screenings')
      .innerJoin('messages', (j) =>
        j
          .onRef('messages.id', '=', 'screenings.message_id')
          .onRef('messages.inbox_id', '=', 'screenings.inbox_id'),
      )
      .innerJoin('folders', 'folders.id', 'messages.folder_id')
      .where('screenings.inbox_id', 'in', [...inboxIds])
      .where('screenings.verdict', '=', 'junk')
      .where('screenings.decided_at', '>=', since.getTime())
      .where('folders.canonical', '=', 'screened');
  }

  async screened(
    inboxIds: readonly string[],
    since: Date,
    page: { limit: number; offset: number },
  ): Promise<{ rows: ScreenedRow[]; total: number }> {
    if (inboxIds.length === 0) return { rows: [], total: 0 };
    const base = this.waiting(inboxIds, since);
    const [rows, count] = await Promise.all([
      base
        .select([
          'screenings.id',
          'screenings.inbox_id',
          'screenings.message_id',
          'screenings.reason',
          'screenings.source',
          'screenings.decided_at',
          'screenings.undo_id',
          'messages.from_address',
          'messages.from_name',
          'messages.subject',
          'messages.date',
        ])
        .orderBy('screenings.decided_at', 'desc')
        .orderBy('screenings.id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      rows: rows.map((r) => ({
        id: r.id,
        inboxId: r.inbox_id,
        messageId: r.message_id,
        from: { address: r.from_address, name: r.from_name },
        subject: r.subject,
        date: toDate(r.date),
        reason: r.reason,
        source: r.source as JunkSource,
        screenedAt: toDate(r.decided_at ?? 0),
        undoId: r.undo_id,
      })),
      total: count.n,
    };
  }

  async digest(inboxIds: readonly string[], since: Date): Promise<ScreenedDigest> {
    if (inboxIds.length === 0)
      return { waiting: 0, senders: 0, topSenders: [], fromBlocklist: 0, rescued: 0, reported: 0 };
    const [bySender, resolved] = await Promise.all([
      this.waiting(inboxIds, since)
        .select([
          'messages.from_address as address',
          (eb) => eb.fn.countAll<number>().as('n'),
          (eb) =>
            eb.fn
              .sum<number>(sql<number>`case when screenings.source = 'blocklist' then 1 else 0 end`)
              .as('blocked'),
        ])
        .groupBy('messages.from_address')
        .execute(),
      this.db
        .selectFrom('screenings')
        .select(['resolution', (eb) => eb.fn.countAll<number>().as('n')])
        .where('inbox_id', 'in', [...inboxIds])
        .where('resolved_at', '>=', since.getTime())
        .groupBy('resolution')
        .execute(),
    ]);
    const senders = bySender
      .map((r) => ({ address: r.address, messages: r.n, blocked: r.blocked }))
      .sort((a, b) => b.messages - a.messages || a.address.localeCompare(b.address));
    const count = (res: Resolution) => resolved.find((r) => r.resolution === res)?.n ?? 0;
    return {
      waiting: senders.reduce((n, s) => n + s.messages, 0),
      senders: senders.length,
      topSenders: senders.slice(0, 3).map(({ address, messages }) => ({ address, messages })),
      fromBlocklist: senders.reduce((n, s) => n + s.blocked, 0),
      rescued: count('rescued'),
      reported: count('reported'),
    };
  }

  async deleteForgotten(before: Date): Promise<number> {
    const r = await this.db
      .deleteFrom('screenings')
      .where(sql<number>`coalesce(resolved_at, decided_at, offered_at)`, '<', before.getTime())
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('messages')
              .select(sql<number>`1`.as('held'))
              .whereRef('messages.id', '=', 'screenings.message_id'),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}

/** The columns every screening row starts with: its id, and the message and sender it is about. */
function newRow(i: ScreeningItem) {
  return {
    id: newId('scr'),
    account_id: i.accountId,
    inbox_id: i.inboxId,
    message_id: i.messageId,
    sender_address: i.senderAddress.toLowerCase(),
  };
}
