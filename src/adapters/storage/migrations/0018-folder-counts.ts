import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';

/**
 * How many indexed messages each folder holds, and how many of them are unread, kept by the database itself
 * (decision 0036). `list_messages` answers with the total of the folders it pages; counting the folders' rows on
 * every page grew with the window (30 µs a page at 1,000 messages, 3.2 ms at 100,000). The counts are kept by
 * triggers on `messages`, so no write path can forget them: an insert adds, a delete subtracts, an update that
 * moves a message or changes its unread flag does both. Every folder gets its row when it is made.
 *
 * SQLite runs a trigger per row, where an update is a B-tree lookup. PostgreSQL runs one per statement, with the
 * statement's rows as transition tables, so a 250-row batch of a sync updates each folder's row once instead of
 * 250 times (each update of a row in PostgreSQL is a new version of it); it locks the rows it changes in folder
 * order, so two statements moving messages between the same folders cannot wait on each other in a circle.
 */
export function folderCounts(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('folder_counts')
        .addColumn('folder_id', 'text', (c) => c.primaryKey().references('folders.id').onDelete('cascade'))
        .addColumn('messages', 'integer', (c) => c.notNull())
        .addColumn('unread', 'integer', (c) => c.notNull())
        .execute();
      await sql`
        insert into folder_counts (folder_id, messages, unread)
        select f.id, count(m.id), coalesce(sum(m.unread), 0)
        from folders f left join messages m on m.folder_id = f.id
        group by f.id`.execute(db);
      for (const statement of dialect === 'postgres' ? POSTGRES : SQLITE)
        await sql.raw(statement).execute(db);
    },
  };
}

const SQLITE = [
  `create trigger folders_counted after insert on folders begin
     insert into folder_counts (folder_id, messages, unread) values (new.id, 0, 0);
   end`,
  `create trigger messages_counted_insert after insert on messages begin
     update folder_counts set messages = messages + 1, unread = unread + new.unread where folder_id = new.folder_id;
   end`,
  `create trigger messages_counted_delete after delete on messages begin
     update folder_counts set messages = messages - 1, unread = unread - old.unread where folder_id = old.folder_id;
   end`,
  `create trigger messages_counted_update after update of folder_id, unread on messages
   when old.folder_id is not new.folder_id or old.unread is not new.unread begin
     update folder_counts set messages = messages - 1, unread = unread - old.unread where folder_id = old.folder_id;
     update folder_counts set messages = messages + 1, unread = unread + new.unread where folder_id = new.folder_id;
   end`,
];

/**
 * A statement trigger's body adding the per-folder sums of `changes` (rows of folder_id, messages, unread), one
 * folder at a time in folder order: two statements moving messages between the same folders lock their rows in
 * the same order, so neither waits for the other in a circle. Folders whose sums are zero are not touched (an
 * upsert that changed no flag locks nothing).
 */
const apply = (changes: string) => `
  declare
    d record;
  begin
    for d in
      select folder_id, sum(messages)::integer as messages, sum(unread)::integer as unread
      from (${changes}) as changes
      group by folder_id
      having sum(messages) <> 0 or sum(unread) <> 0
      order by folder_id
    loop
      update folder_counts
      set messages = messages + d.messages, unread = unread + d.unread
      where folder_id = d.folder_id;
    end loop;
    return null;
  end`;

const POSTGRES = [
  `create function folders_counted() returns trigger language plpgsql as $$
   begin
     insert into folder_counts (folder_id, messages, unread) values (new.id, 0, 0);
     return null;
   end $$`,
  `create trigger folders_counted after insert on folders for each row execute function folders_counted()`,
  `create function messages_counted_insert() returns trigger language plpgsql as $$
   ${apply('select folder_id, 1 as messages, unread from new_rows')} $$`,
  `create trigger messages_counted_insert after insert on messages referencing new table as new_rows
   for each statement execute function messages_counted_insert()`,
  `create function messages_counted_delete() returns trigger language plpgsql as $$
   ${apply('select folder_id, -1 as messages, -unread as unread from old_rows')} $$`,
  `create trigger messages_counted_delete after delete on messages referencing old table as old_rows
   for each statement execute function messages_counted_delete()`,
  `create function messages_counted_update() returns trigger language plpgsql as $$
   ${apply(
     'select folder_id, 1 as messages, unread from new_rows union all select folder_id, -1, -unread from old_rows',
   )} $$`,
  `create trigger messages_counted_update after update on messages referencing old table as old_rows new table as new_rows
   for each statement execute function messages_counted_update()`,
];
