import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { openPostgres, type PostgresDb } from './database.ts';
import { migrateToLatest } from './index.ts';
import { hotBatch, hotQuery } from './hot-query.ts';

// On PostgreSQL a hot statement is prepared once per pooled connection (hot-query.ts, decision 0047). These pin what
// that must not change: the rows are Kysely's, and a table changed by another node's migration does not break it.
describe('hot statements on PostgreSQL', () => {
  let db: PostgresDb;
  beforeEach(async () => {
    db = openPostgres(await freshPgDatabase(), { poolSize: 3 });
    await migrateToLatest(db);
  });
  afterEach(async () => {
    await db.kysely.destroy();
  });

  const insert = (d: PostgresDb) =>
    hotBatch<{ scope: string; key: string; value_json: string; updated_at: number }>(d, (rows) =>
      d.kysely.insertInto('settings').values([...rows]),
    );
  const byScope = (d: PostgresDb) =>
    hotQuery<Record<string, unknown>, { scope: string }>(d, (p) =>
      d.kysely
        .selectFrom('settings')
        .selectAll()
        .where('scope', 'in', [p('scope')])
        .orderBy('key'),
    );

  it('is prepared on the server once, and answers what Kysely answers', async () => {
    await insert(db)([
      { scope: 's', key: 'a', value_json: '1', updated_at: 5 },
      { scope: 's', key: 'b', value_json: '2', updated_at: 6 },
    ]);
    const read = byScope(db);
    const viaKysely = await db.kysely
      .selectFrom('settings')
      .selectAll()
      .where('scope', '=', 's')
      .orderBy('key')
      .execute();
    // More runs than connections: every connection that ran it holds it prepared, and answers the same.
    for (let i = 0; i < 8; i++) expect(await read({ scope: 's' })).toEqual(viaKysely);
    const prepared = await Promise.all(
      Array.from({ length: 3 }, () =>
        sql<{
          n: number;
        }>`select count(*)::int as n from pg_prepared_statements where name like 'hot_%'`.execute(db.kysely),
      ),
    );
    expect(prepared.some((r) => (r.rows[0]?.n ?? 0) > 0)).toBe(true);
  });

  it('survives a column added by another node while it is prepared: prepared again, once', async () => {
    await insert(db)([{ scope: 's', key: 'a', value_json: '1', updated_at: 5 }]);
    const read = byScope(db);
    // Prepared on every pooled connection (three at once hold three connections).
    await Promise.all(Array.from({ length: 3 }, () => read({ scope: 's' })));
    await sql`alter table settings add column extra text default 'x'`.execute(db.kysely);
    const after = await Promise.all(Array.from({ length: 6 }, () => read({ scope: 's' })));
    for (const rows of after) expect(rows).toEqual([expect.objectContaining({ key: 'a', extra: 'x' })]);
  });
});
