import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { AccountId } from '../../../core/accounts/account.ts';
import { seedInboxFolder } from '../../../core/messages/folder-store.contract.ts';
import { newSummary } from '../../../core/messages/message-store.contract.ts';
import { migrateTo, migrationTargets } from '../../../../test/support/migration-targets.ts';
import { createStores, migrateToLatest, openDatabase, type Db } from '../index.ts';

// Decision 0106: addresses indexed, and VIP entries typed, before sync cleaned what nobody sees in an address.
const targets = migrationTargets('visible-');

for (const { name, target } of targets) {
  describe(`migration 0025 on ${name}: addresses as the person sees them, in what was written before`, () => {
    let db: Db | undefined;
    afterEach(async () => {
      await db?.close();
    });

    it('cleans a look-alike sender, recipient and List-Id, leaves every other row alone, and drops look-alike VIPs', async () => {
      db = openDatabase(await target());
      await migrateTo(db, '0024-credential-set-at');
      const stores = createStores(db);
      const { inbox, folder } = await seedInboxFolder(stores);
      const lookalike = newSummary(inbox, folder, 1, {
        subject: 'Gift cards',
        from: { address: 'bo\u200bss@corp.test', name: 'Boss' },
        to: [{ address: '\u202eme@example.test', name: 'Me' }],
        listId: 'list\u2066.corp.test',
      });
      await stores.messages.upsertMany([
        lookalike,
        ...Array.from({ length: 1203 }, (_, n) => newSummary(inbox, folder, n + 2)),
      ]);
      const before = await sql<{ id: string; search_text: string }>`
        select id, search_text from messages where id <> ${lookalike.id} order by id`.execute(db.kysely);
      const owner = await sql<{
        account_id: string;
      }>`select account_id from inboxes where id = ${inbox}`.execute(db.kysely);
      const account = owner.rows[0]!.account_id as AccountId;
      await stores.vips.add(
        account,
        [
          { kind: 'email', value: 'boss@corp.test' },
          { kind: 'email', value: 'boss\u200b@corp.test' },
          { kind: 'domain', value: 'corp\u00ad.test' },
        ],
        new Date(),
        10,
      );

      expect(await migrateToLatest(db)).toContain('0025-visible-addresses');
      const after = await stores.messages.get(inbox, lookalike.id);
      expect(after?.from.address).toBe('boss@corp.test');
      expect(after?.to).toEqual([{ address: 'me@example.test', name: 'Me' }]);
      expect(after?.listId).toBe('list.corp.test');
      expect(
        (await stores.messages.list(inbox, { text: 'boss@corp.test', limit: 5, offset: 0 })).items,
      ).toHaveLength(1);
      const rest = await sql<{ id: string; search_text: string }>`
        select id, search_text from messages where id <> ${lookalike.id} order by id`.execute(db.kysely);
      expect(rest.rows).toEqual(before.rows);
      expect((await stores.vips.list(account)).map((v) => v.value)).toEqual(['boss@corp.test']);
    });
  });
}
