import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Addresses as the person sees them (decision 0106), in what was written before: a sender's address or List-Id with an
 * invisible, bidirectional or control character in the index is cleaned as sync now cleans it (so mail from
 * `bo\u200bss@corp.test` indexed before meets the VIP rule as boss@corp.test), and a VIP entry holding one — which the
 * list showed like the real address and no mail now matches — goes. Rows are read a thousand at a time in id order and
 * only those that change are written. The rules are written out here, not imported: a migration that has shipped keeps
 * doing what it did (migrations/index.ts).
 */
export function visibleAddresses(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const vips = await sql<{ account_id: string; kind: string; value: string }>`
        select account_id, kind, value from vips`.execute(db);
      for (const v of vips.rows)
        if (/[\p{Cc}\p{Cf}]/u.test(v.value))
          await sql`delete from vips where account_id = ${v.account_id} and kind = ${v.kind} and value = ${v.value}`.execute(
            db,
          );
      let after = '';
      for (;;) {
        const { rows } = await sql<Row>`
          select id, from_address, to_json, list_id from messages where id > ${after} order by id limit 1000`.execute(
          db,
        );
        for (const r of rows) {
          // Printable ASCII, as nearly every row is, has nothing to clean (JSON writes a control as \u escape).
          if (/^[\x20-\x5b\x5d-\x7e]*$/.test(`${r.from_address}${r.to_json}${r.list_id ?? ''}`)) continue;
          const from = clean(r.from_address);
          const was = JSON.parse(r.to_json) as { address: string; name: string }[];
          const to = was.map((a) => ({ ...a, address: clean(a.address) }));
          const listId = r.list_id === null ? null : clean(r.list_id);
          if (
            from === r.from_address &&
            listId === r.list_id &&
            to.every((a, i) => a.address === was[i]?.address)
          )
            continue;
          const full = await sql<{ subject: string; from_name: string; snippet: string }>`
            select subject, from_name, snippet from messages where id = ${r.id}`.execute(db);
          const m = full.rows[0];
          if (m === undefined) continue;
          await sql`update messages set from_address = ${from}, to_json = ${JSON.stringify(to)},
            list_id = ${listId},
            search_text = ${fold(`${m.subject}\n${m.from_name} <${from}>\n${m.snippet}`)}
            where id = ${r.id}`.execute(db);
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
  from_address: string;
  to_json: string;
  list_id: string | null;
}

// Invisible and bidi-control characters, and C0/C1 controls, as `cleanAddress` removed them on 2026-11-30.
const INVISIBLE =
  /[\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
const clean = (s: string): string =>
  s
    .replace(INVISIBLE, '')
    .replace(CONTROLS, '')
    .replace(/[\u27e6\u27e7]/g, (c) => (c === '\u27e6' ? '[' : ']'));
const fold = (text: string): string =>
  /[^\x00-\x7f]/.test(text)
    ? text
        .normalize('NFKD')
        .replace(/\p{M}+/gu, '')
        .toLowerCase()
    : text.toLowerCase();
