import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The index's searchable text folded as the stores now write it (decision 0086): accents and compatibility forms
 * dropped, so that "jose" finds "José". Only the rows whose text changes are written — mail in plain ASCII, most of
 * any index, is read and left alone. Rows are read a thousand at a time in id order. The fold is written out here,
 * not imported: a migration that has shipped keeps doing what it did (migrations/index.ts).
 */
export function foldedSearch(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      let after = '';
      for (;;) {
        const { rows } = await sql<Row>`
          select id, subject, from_name, from_address, snippet, search_text from messages
          where id > ${after} order by id limit 1000`.execute(db);
        for (const r of rows) {
          const folded = fold(`${r.subject}\n${r.from_name} <${r.from_address}>\n${r.snippet}`);
          if (folded !== r.search_text)
            await sql`update messages set search_text = ${folded} where id = ${r.id}`.execute(db);
        }
        const last = rows.at(-1);
        if (last === undefined || rows.length < 1000) return;
        after = last.id;
      }
    },
  };
}

interface Row {
  id: string;
  subject: string;
  from_name: string;
  from_address: string;
  snippet: string;
  search_text: string;
}

const fold = (text: string): string => text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
