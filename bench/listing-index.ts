// The two measurements behind decisions 0036 and 0037, on the real schema and stores (SQLite file, WAL, migrations):
// - a listing page of five: its total read from the kept folder counts (what `headlines` does) against the COUNT
//   of the folder's rows decision 0026 ran on every page, at 1,000, 10,000 and 100,000 indexed messages;
// - writing 100,000 summaries through `upsertMany` (batches of 250, as a sync does): ids that follow the clock
//   against random ids, and the count triggers' share (the same writes with the triggers dropped).
// Run: `npx node bench/listing-index.ts` (through npm's Node 24). Single runs on a shared machine vary by ±20%.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createStores, migrateToLatest, openSqlite } from '../src/adapters/storage/index.ts';
import type { MessageId } from '../src/core/messages/message.ts';
import { seedInboxFolder } from '../src/core/messages/folder-store.contract.ts';
import { newSummary } from '../src/core/messages/message-store.contract.ts';
import { newId, newTimeOrderedId } from '../src/lib/random.ts';

const BATCH = 250;

async function indexOf(n: number, opts: { ids: 'clock' | 'random'; triggers: boolean }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-listing-'));
  const db = openSqlite(join(dir, 'inbox-triage.db'));
  await migrateToLatest(db);
  if (!opts.triggers)
    for (const t of ['messages_counted_insert', 'messages_counted_delete', 'messages_counted_update'])
      await sql.raw(`drop trigger ${t}`).execute(db.kysely);
  const stores = createStores(db);
  const { inbox, folder } = await seedInboxFolder(stores);
  const at = Date.now();
  const rows = Array.from({ length: n }, (_, i) =>
    newSummary(inbox, folder, i + 1, {
      id: (opts.ids === 'clock'
        ? newTimeOrderedId('msg', at + Math.floor(i / BATCH))
        : newId('msg')) as MessageId,
    }),
  );
  const t0 = performance.now();
  for (let i = 0; i < n; i += BATCH) await stores.messages.upsertMany(rows.slice(i, i + BATCH));
  const writeMs = performance.now() - t0;
  const close = async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { db, stores, inbox, folderId: folder, writeMs, close };
}

const perRun = (run: () => unknown, n: number) => {
  for (let i = 0; i < Math.min(n, 1_000); i++) run();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) run();
  return ((performance.now() - t0) / n) * 1000;
};

console.log('A listing page of five, newest first, with its total (µs per page):');
console.log('| indexed messages | total from the kept counts | COUNT of the folder | counted / kept |');
console.log('|---|---|---|---|');
// The first size twice: the first pass warms SQLite's code and the JIT up and is not shown.
for (const [n, shown] of [
  [1_000, false],
  [1_000, true],
  [10_000, true],
  [100_000, true],
] as const) {
  const ix = await indexOf(n, { ids: 'clock', triggers: true });
  const runs = n >= 100_000 ? 500 : 5_000;
  // The page's statement as the store builds it (hot-query.ts: compiled once, `in (?)` for equalities), and the
  // same page with decision 0026's scalar COUNT over the same filter instead; both prepared, both run the same way.
  const page = (total: string) =>
    ix.db.sqlite.prepare(`
      select id, folder_id, thread_id, subject, from_address, from_name, snippet, date, unread, starred, labels_json,
        has_attachments, list_id, list_unsubscribe, (${total}) as total
      from messages where inbox_id in (?) and folder_id in (?)
      order by date desc, position desc, id desc limit 5 offset ?`);
  const keptPage =
    page(`select coalesce(sum(c.messages), 0) from folder_counts c join folders f on f.id = c.folder_id
    where f.inbox_id in (?) and c.folder_id in (?)`);
  const counted = page('select count(*) from messages where inbox_id in (?) and folder_id in (?)');
  const args = [ix.inbox, ix.folderId, ix.inbox, ix.folderId, 0];
  const keptUs = perRun(() => keptPage.all(...args), runs);
  const countedUs = perRun(() => counted.all(...args), runs);
  // The store's own statement agrees with both.
  const kept = (
    await ix.stores.messages.headlines(ix.inbox, { folderIds: [ix.folderId], limit: 5, offset: 0 })
  ).total;
  if ((keptPage.get(...args) as { total: number }).total !== n) throw new Error('the kept counts are off');
  const total = (counted.get(...args) as { total: number }).total;
  if (total !== n || kept !== n)
    throw new Error(`totals ${String(kept)} and ${String(total)}, expected ${String(n)}`);
  if (shown)
    console.log(
      `| ${n.toLocaleString('en')} | ${keptUs.toFixed(1)} | ${countedUs.toFixed(1)} | ${(countedUs / keptUs).toFixed(1)}× |`,
    );
  await ix.close();
}

console.log(
  '\nWriting 100,000 summaries through upsertMany, batches of 250 (ms, two runs each, alternated):',
);
console.log('| ids | count triggers | run 1 | run 2 |');
console.log('|---|---|---|---|');
const variants = [
  { ids: 'clock', triggers: true },
  { ids: 'random', triggers: true },
  { ids: 'clock', triggers: false },
] as const;
const times = new Map<(typeof variants)[number], number[]>(variants.map((v) => [v, []]));
for (let run = 0; run < 2; run++)
  for (const v of variants) {
    const ix = await indexOf(100_000, v);
    times.get(v)!.push(ix.writeMs);
    await ix.close();
  }
for (const v of variants)
  console.log(
    `| ${v.ids === 'clock' ? 'follow the clock' : 'random'} | ${v.triggers ? 'kept' : 'dropped'} | ${times
      .get(v)!
      .map((ms) => ms.toFixed(0))
      .join(' | ')} |`,
  );
