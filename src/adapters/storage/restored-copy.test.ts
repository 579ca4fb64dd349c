import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateTo, migrationTargets } from '../../../test/support/migration-targets.ts';
import { markAsCopy, openDatabase, pendingMigrations, takeUpRestoredCopy } from './index.ts';

// An upgrade taken back (decision 0137): the backup made before it is put in place and `after-restore` runs before the
// older version starts. The database is of that older version, without the tables of later features, and must stay
// one that version opens: nothing migrated, the tables it lacks skipped. The whole flow on the current version:
// test/e2e/restored-copy.test.ts.
describe.each(migrationTargets('restored-copy-'))(
  'a restored copy of an earlier version on $name',
  ({ target }) => {
    it('withdraws what it holds open, in the tables it has, and migrates nothing', async () => {
      const db = openDatabase(await target());
      try {
        await migrateTo(db, '0012-requested-by'); // before draft cards (0013)
        const now = Date.now();
        await sql`insert into accounts (id, email, plan, created_at, updated_at)
                values ('acc_1', 'owner@example.test', 'pro', ${now}, ${now})`.execute(db.kysely);
        await sql`insert into sessions (id_hash, account_id, created_at, expires_at, last_seen_at)
                values ('h', 'acc_1', ${now}, ${now + 86_400_000}, ${now})`.execute(db.kysely);
        const pending = await pendingMigrations(db);
        expect(pending).toContain('0013-draft-cards');

        await markAsCopy(db, new Date('2026-11-30T02:00:00Z'), new Date(now));
        expect(await takeUpRestoredCopy(db, new Date(now))).toEqual({
          copyMadeAt: new Date('2026-11-30T02:00:00Z'),
          sends: 0,
          unsubscribes: 0,
          sessions: 1,
          signIns: 0,
          links: 0,
        });
        expect(await pendingMigrations(db)).toEqual(pending);
        const left = await sql<{ n: unknown }>`select count(*) as n from sessions`.execute(db.kysely);
        expect(Number(left.rows[0]?.n)).toBe(0);
        expect(await takeUpRestoredCopy(db, new Date(now))).toBeUndefined();
      } finally {
        await db.close();
      }
    });
  },
);
