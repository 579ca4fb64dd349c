import { existsSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { WATCH_APPLICATION_NAME } from '../../src/adapters/jobs/pg-inbox-claims.ts';
import { sqlitePath } from '../../src/config/load-config.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { runCommand } from '../support/spawn-service.ts';
import { createTestApp, TEST_KEY } from '../support/test-app.ts';
import { tempDir } from '../support/temp-dir.ts';
import { somethingInEveryTable } from '../support/something-in-every-table.ts';

/** Every table's rows as text, sorted, the migrator's aside: what the two databases must hold alike. */
const MIGRATOR = /^schema_migrations/;
/** A value as text, alike on both sides: PostgreSQL's bigint arrives as a string, SQLite's integers as numbers. */
const text = (v: unknown): string | null =>
  v === null ? null : typeof v === 'string' ? v : JSON.stringify(v);
const asText = (rows: readonly Record<string, unknown>[]) =>
  rows.map((r) => JSON.stringify(Object.values(r).map(text))).sort();

async function pgTables(url: string): Promise<Map<string, string[]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    );
    const out = new Map<string, string[]>();
    for (const { name } of rows.filter((r) => !MIGRATOR.test(r.name)))
      out.set(name, asText((await client.query<Record<string, unknown>>(`SELECT * FROM "${name}"`)).rows));
    return out;
  } finally {
    await client.end();
  }
}

function sqliteTables(path: string): Map<string, string[]> {
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    const names = (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .all() as {
        name: string;
      }[]
    ).filter((t) => !MIGRATOR.test(t.name));
    return new Map(
      names.map(({ name }) => [
        name,
        asText(db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]),
      ]),
    );
  } finally {
    db.close();
  }
}

// Decision 0152: instances on PostgreSQL go back to one service on SQLite with everything they keep — the person's
// sign-in, their agents' keys and sign-ins, the inbox and its index, an undo handle, a draft's approval, a download
// link, the activity — working the same on the other side, row for row.
describe('inbox-triage copy-to-sqlite', () => {
  it('moves everything to a new SQLite database, row for row, never beside a running instance', async () => {
    const pgUrl = await freshPgDatabase();
    const before = await createTestApp({ pgUrl });
    const { worksOn } = await somethingInEveryTable(before);

    const dataDir = tempDir('copy-to-');
    const target = sqlitePath(dataDir);
    const env = { DATA_DIR: dataDir, DATABASE_URL: pgUrl, ENCRYPTION_KEY: TEST_KEY.toString('base64') };
    // Not beside a running instance: it would go on writing after the copy's snapshot. (A service process keeps a
    // watch session, which the test app does not start: one stands in for it.)
    const watch = new pg.Client({ connectionString: pgUrl, application_name: WATCH_APPLICATION_NAME });
    await watch.connect();
    const running = await runCommand(env, 'copy-to-sqlite');
    await watch.end();
    expect(running).toMatchObject({ code: 1 });
    expect(running.err).toContain(
      '1 Inbox Triage instance is running on this database: stop every instance first',
    );
    expect(existsSync(target)).toBe(false);
    await before.close();
    // Not with another key: the service on SQLite could not open the inbox's sign-in.
    const otherKey = await runCommand(
      { ...env, ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') },
      'copy-to-sqlite',
    );
    expect(otherKey.code).toBe(2);
    expect(otherKey.err).toContain('is not the key the PostgreSQL database was set up with');
    expect(existsSync(target)).toBe(false);

    const copied = await runCommand(env, 'copy-to-sqlite');
    expect(copied.err).toBe('');
    expect(copied.code).toBe(0);
    expect(copied.out).toMatch(/^Copied \d+ rows of \d+ tables from PostgreSQL into .*inbox-triage\.db\./);
    expect(copied.out).not.toContain(pgUrl);
    // Row for row, every table (the folder counts made again by SQLite's own triggers).
    const want = await pgTables(pgUrl);
    const have = sqliteTables(target);
    expect([...have.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [table, rows] of want) expect({ table, rows: have.get(table) }).toEqual({ table, rows });
    expect(want.get('messages')!.length).toBeGreaterThan(10);

    const after = await createTestApp({ config: { dataDir, database: { kind: 'sqlite', path: target } } });
    try {
      await worksOn(after);
    } finally {
      await after.close();
    }

    const twice = await runCommand(env, 'copy-to-sqlite');
    expect(twice.code).toBe(1);
    expect(twice.err).toContain(`there is a database at ${target} already`);
  }, 120_000);

  it('says what to set when DATABASE_URL is not set', async () => {
    const none = await runCommand({ DATA_DIR: tempDir('copy-to-none-') }, 'copy-to-sqlite');
    expect(none.code).toBe(2);
    expect(none.err).toContain('set DATABASE_URL to the PostgreSQL database to copy from');
  });
});
