// Shows why hot queries write `column in (?)` instead of `column = ?` (src/adapters/storage/hot-query.ts):
// on SQLite 3.54 a statement re-prepares on every run when a bound `column = ?` meets ORDER BY/GROUP BY, or when
// LIMIT is bound. Run: `node bench/sqlite-reprepare.ts` (through npm's Node 24: `npx node bench/sqlite-reprepare.ts`).
import Database from 'better-sqlite3';

const db = new Database(':memory:');
db.exec(`create table t (id text primary key, a text not null, c integer not null, x text);
         create index t_idx on t (a, c, id);
         insert into t values ('i1', 'acc', 1, 'hello');`);

const cases: [string, unknown[]][] = [
  ['select * from t where a = ?', ['acc']],
  ['select * from t where a = ? order by c, id', ['acc']],
  ['select * from t where a in (?) order by c, id', ['acc']],
  ["select * from t where a = 'acc' order by c, id", []],
  ['select * from t where a = ? limit ?', ['acc', 1]],
  ['select * from t where a = ? limit 1', ['acc']],
];
for (const [sql, args] of cases) {
  const stmt = db.prepare(sql);
  const run = () => stmt.all(...args);
  for (let i = 0; i < 5_000; i++) run();
  const n = 50_000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) run();
  const us = Number(process.hrtime.bigint() - t0) / n / 1000;
  console.log(`${us.toFixed(2).padStart(6)} µs  ${sql}`);
}
