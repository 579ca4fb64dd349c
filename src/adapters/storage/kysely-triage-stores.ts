import type { Selectable } from 'kysely';
import type { AccountId } from '../../core/accounts/account.ts';
import type { UndoEntry, UndoRecord, UndoStore } from '../../core/actions/undo-store.ts';
import type { Lease, LeaseStore, TriagePass } from '../../core/leases/lease-store.ts';
import type { VipEntry, VipStore } from '../../core/vips/vip-store.ts';
import type { Db } from './database.ts';
import type { LeasesTable, UndoRecordsTable } from './schema.ts';
import { toDate, inboxRowWrite } from './sql-errors.ts';
import { lockAccount } from './row-locks.ts';
import { err, ok, type Result } from '../../lib/result.ts';

export class KyselyUndoStore implements UndoStore {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async save(r: UndoRecord): Promise<void> {
    await this.db
      .insertInto('undo_records')
      .values({
        id: r.id,
        account_id: r.accountId,
        action: r.action,
        entries_json: JSON.stringify(r.entries),
        created_at: r.createdAt.getTime(),
        expires_at: r.expiresAt.getTime(),
        used_at: null,
      })
      .execute();
  }

  async deleteExpired(now: Date): Promise<void> {
    await this.db.deleteFrom('undo_records').where('expires_at', '<=', now.getTime()).execute();
  }

  async settle(accountId: AccountId, id: string, entries: readonly UndoEntry[]): Promise<void> {
    if (entries.length === 0)
      await this.db
        .deleteFrom('undo_records')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .execute();
    else
      await this.db
        .updateTable('undo_records')
        .set({ entries_json: JSON.stringify(entries) })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .execute();
  }

  async consume(accountId: AccountId, id: string, now: Date): Promise<UndoRecord | undefined> {
    const taken = await this.db
      .updateTable('undo_records')
      .set({ used_at: now.getTime() })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now.getTime())
      .returningAll()
      .executeTakeFirst();
    return taken && toUndoRecord(taken);
  }

  async find(accountId: AccountId, id: string, now: Date): Promise<UndoRecord | undefined> {
    const r = await this.db
      .selectFrom('undo_records')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirst();
    return r === undefined ? undefined : toUndoRecord(r);
  }

  async interrupted(accountId: AccountId, now: Date, before: Date): Promise<UndoRecord[]> {
    const rows = await this.db
      .selectFrom('undo_records as u')
      .selectAll('u')
      .where('u.account_id', '=', accountId)
      .where('u.used_at', 'is', null)
      .where('u.expires_at', '>', now.getTime())
      .where('u.created_at', '<', before.getTime())
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('audit_log as a')
              .select('a.id')
              .where('a.account_id', '=', accountId)
              .whereRef('a.undo_id', '=', 'u.id'),
          ),
        ),
      )
      .orderBy('u.created_at', 'desc')
      .limit(50)
      .execute();
    return rows.map(toUndoRecord);
  }

  async describe(
    accountId: AccountId,
    id: string,
  ): Promise<(UndoRecord & { usedAt: Date | null }) | undefined> {
    const r = await this.db
      .selectFrom('undo_records')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return r === undefined
      ? undefined
      : { ...toUndoRecord(r), usedAt: r.used_at === null ? null : toDate(r.used_at) };
  }
}

const toUndoRecord = (r: Selectable<UndoRecordsTable>): UndoRecord => ({
  id: r.id,
  accountId: r.account_id as AccountId,
  action: r.action,
  entries: JSON.parse(r.entries_json) as UndoEntry[],
  createdAt: toDate(r.created_at),
  expiresAt: toDate(r.expires_at),
});

const toLease = (r: Selectable<LeasesTable>): Lease => ({
  inboxId: r.inbox_id,
  holder: r.holder,
  agentLabel: r.agent_label,
  startedAt: toDate(r.started_at),
  expiresAt: toDate(r.expires_at),
});

export class KyselyLeaseStore implements LeaseStore {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async acquire(c: Lease, now: Date): Promise<{ acquired: boolean; lease: Lease }> {
    // The holder of the lease that kept us out may release it before we read it back: then the lease is free and
    // the next try takes it (found by the safety model: the read found no row and the call failed). Three leases
    // taken and given back by others between our statements, three times over, is not worth more than "not now".
    for (let attempt = 1; ; attempt++) {
      const r = await this.tryAcquire(c, now);
      if (r !== undefined || attempt === 3) return r ?? { acquired: false, lease: c };
    }
  }

  /** One try: ours, or the holder's lease that kept us out, or undefined when that one was gone by the read. */
  private async tryAcquire(c: Lease, now: Date): Promise<{ acquired: boolean; lease: Lease } | undefined> {
    // One statement: insert, or take over an expired lease, or extend our own. Otherwise the row is left alone.
    const written = await inboxRowWrite(
      this.db
        .insertInto('leases')
        .values({
          inbox_id: c.inboxId,
          holder: c.holder,
          agent_label: c.agentLabel,
          started_at: c.startedAt.getTime(),
          expires_at: c.expiresAt.getTime(),
        })
        .onConflict((oc) =>
          oc
            .column('inbox_id')
            .doUpdateSet((eb) => ({
              holder: eb.ref('excluded.holder'),
              agent_label: eb.ref('excluded.agent_label'),
              started_at: eb
                .case()
                .when(
                  eb.and([
                    eb('leases.holder', '=', eb.ref('excluded.holder')),
                    eb('leases.agent_label', '=', eb.ref('excluded.agent_label')),
                    eb('leases.expires_at', '>', now.getTime()),
                  ]),
                )
                .then(eb.ref('leases.started_at'))
                .else(eb.ref('excluded.started_at'))
                .end(),
              expires_at: eb.ref('excluded.expires_at'),
            }))
            .where((eb) =>
              eb.or([
                eb('leases.expires_at', '<=', now.getTime()),
                eb.and([
                  eb('leases.holder', '=', eb.ref('excluded.holder')),
                  eb('leases.agent_label', '=', eb.ref('excluded.agent_label')),
                ]),
              ]),
            ),
        )
        .returningAll()
        .executeTakeFirst(),
    );
    // A returned row means this statement inserted or updated it: the lease is ours.
    if (written !== undefined) return { acquired: true, lease: toLease(written) };
    const row = await this.db
      .selectFrom('leases')
      .selectAll()
      .where('inbox_id', '=', c.inboxId)
      .executeTakeFirst();
    return row === undefined ? undefined : { acquired: false, lease: toLease(row) };
  }

  async extend(
    inboxId: string,
    holder: string,
    agentLabel: string,
    now: Date,
    expiresAt: Date,
  ): Promise<Lease | undefined> {
    const r = await this.db
      .updateTable('leases')
      .set({ expires_at: expiresAt.getTime() })
      .where('inbox_id', '=', inboxId)
      .where('holder', '=', holder)
      .where('agent_label', '=', agentLabel)
      .where('expires_at', '>', now.getTime())
      .returningAll()
      .executeTakeFirst();
    // Like `current`: a lease extended to no later than `now` is not live.
    return r !== undefined && r.expires_at > now.getTime() ? toLease(r) : undefined;
  }

  async release(
    inboxId: string,
    holder: string,
    agentLabel: string,
    now: Date,
    summary: string | null,
    passId: string,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      // Only the release whose DELETE removed the row records the pass; concurrent ones get nothing back.
      const lease = await tx
        .deleteFrom('leases')
        .where('inbox_id', '=', inboxId)
        .where('holder', '=', holder)
        .where('agent_label', '=', agentLabel)
        .returning('started_at')
        .executeTakeFirst();
      if (lease === undefined) return false;
      await tx
        .insertInto('triage_passes')
        .values({
          id: passId,
          inbox_id: inboxId,
          agent_label: agentLabel,
          holder,
          started_at: lease.started_at,
          ended_at: now.getTime(),
          summary,
        })
        .execute();
      return true;
    });
  }

  async endHeldBy(inboxId: string, holder: string, now: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('leases')
      .set({ expires_at: now.getTime() })
      .where('inbox_id', '=', inboxId)
      .where('holder', '=', holder)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  async current(inboxId: string, now: Date): Promise<Lease | undefined> {
    const r = await this.db
      .selectFrom('leases')
      .selectAll()
      .where('inbox_id', '=', inboxId)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirst();
    return r && toLease(r);
  }

  async deletePassesBefore(before: Date): Promise<number> {
    const r = await this.db
      .deleteFrom('triage_passes')
      .where('ended_at', '<', before.getTime())
      // Only a pass of an inbox that has a later one: the last stays, however old.
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('triage_passes as later')
            .select('later.id')
            .whereRef('later.inbox_id', '=', 'triage_passes.inbox_id')
            .whereRef('later.ended_at', '>', 'triage_passes.ended_at'),
        ),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async lastPass(inboxId: string): Promise<TriagePass | undefined> {
    const r = await this.db
      .selectFrom('triage_passes')
      .selectAll()
      .where('inbox_id', '=', inboxId)
      .orderBy('ended_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return (
      r && {
        inboxId: r.inbox_id,
        agentLabel: r.agent_label,
        startedAt: toDate(r.started_at),
        endedAt: toDate(r.ended_at),
        summary: r.summary,
      }
    );
  }
}

export class KyselyVipStore implements VipStore {
  private readonly db: Db['kysely'];
  private readonly dialect: Db['dialect'];
  constructor(db: Db) {
    this.db = db.kysely;
    this.dialect = db.dialect;
  }

  async list(accountId: AccountId): Promise<VipEntry[]> {
    const rows = await this.db
      .selectFrom('vips')
      .select(['kind', 'value'])
      .where('account_id', '=', accountId)
      .orderBy('kind')
      .orderBy('value')
      .execute();
    return rows.map((r) => ({ kind: r.kind as VipEntry['kind'], value: r.value }));
  }

  async add(
    accountId: AccountId,
    entries: readonly VipEntry[],
    now: Date,
    max: number,
  ): Promise<Result<{ listed: number }, { listed: number }>> {
    return this.db.transaction().execute(async (tx) => {
      await lockAccount(tx, this.dialect, accountId);
      const listed = await tx
        .selectFrom('vips')
        .select(['kind', 'value'])
        .where('account_id', '=', accountId)
        .execute();
      const key = (e: { kind: string; value: string }) => `${e.kind} ${e.value}`;
      const there = new Set(listed.map(key));
      const fresh = [...new Map(entries.filter((e) => !there.has(key(e))).map((e) => [key(e), e])).values()];
      if (listed.length + fresh.length > max) return err({ listed: listed.length });
      if (fresh.length > 0)
        await tx
          .insertInto('vips')
          .values(
            fresh.map((e) => ({
              account_id: accountId,
              kind: e.kind,
              value: e.value,
              created_at: now.getTime(),
            })),
          )
          .onConflict((oc) => oc.columns(['account_id', 'kind', 'value']).doNothing())
          .execute();
      return ok({ listed: listed.length + fresh.length });
    });
  }

  async remove(accountId: AccountId, entries: readonly VipEntry[]): Promise<number> {
    let n = 0;
    for (const e of entries) {
      const r = await this.db
        .deleteFrom('vips')
        .where('account_id', '=', accountId)
        .where('kind', '=', e.kind)
        .where('value', '=', e.value)
        .executeTakeFirst();
      n += Number(r.numDeletedRows);
    }
    return n;
  }
}
