import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { seedInboxFolder } from '../../../core/messages/folder-store.contract.ts';
import { newSummary } from '../../../core/messages/message-store.contract.ts';
import { migrateTo, migrationTargets } from '../../../../test/support/migration-targets.ts';
import { createStores, migrateToLatest, openDatabase, type Db } from '../index.ts';

// Decision 0086: an index written before searching ignored accents gets its text folded, once.
const targets = migrationTargets('fold-');

for (const { name, target } of targets) {
  describe(`migration 0019 on ${name}: search text folded in an index made before it`, () => {
    let db: Db | undefined;
    afterEach(async () => {
      await db?.close();
    });

    it('finds what was indexed before by its unaccented words; every row ends as the stores write it', async () => {
      db = openDatabase(await target());
      await migrateTo(db, '0018-folder-counts');
      const stores = createStores(db);
      const { inbox, folder } = await seedInboxFolder(stores);
      await stores.messages.upsertMany(
        Array.from({ length: 1205 }, (_, n) =>
          newSummary(inbox, folder, n + 1, n === 1100 ? { subject: 'Réunion à Zürich' } : {}),
        ),
      );
      // As the stores wrote it before: lower case only.
      await sql`update messages set search_text = lower(subject) || ' ' || lower(from_name)`.execute(
        db.kysely,
      );
      await sql`update messages set search_text = ${'réunion à zürich'} where subject = ${'Réunion à Zürich'}`.execute(
        db.kysely,
      );
      const find = async (text: string) =>
        (await stores.messages.list(inbox, { text, limit: 5, offset: 0 })).items.map((m) => m.subject);
      expect(await find('reunion a zurich')).toEqual([]);

      expect(await migrateToLatest(db)).toContain('0019-folded-search');
      expect(await find('reunion a zurich')).toEqual(['Réunion à Zürich']);
      expect(await find('Réunion')).toEqual(['Réunion à Zürich']);
      // Every row is as the stores write it now, the plain ones too (their old text was rewritten whole).
      const texts = await sql<{
        search_text: string;
      }>`select search_text from messages where subject = ${'Message 7'}`.execute(db.kysely);
      expect(texts.rows[0]!.search_text).toBe('message 7\nsender 0 <sender0@example.test>\nsnippet 7');
    });
  });
}
