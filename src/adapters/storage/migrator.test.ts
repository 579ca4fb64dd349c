import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { migrationsFor } from './migrations/index.ts';
import { MigrationError, migrateToLatest, pendingMigrations } from './migrator.ts';
import { openSqlite, type SqliteDb } from './database.ts';

describe('migrations on SQLite', () => {
  let db: SqliteDb | undefined;
  afterEach(async () => {
    await db?.close();
  });

  // Found by the crash trials (test/rig/crash-trials.ts, kind "migration"): `migrate` killed during 0013 left its
  // table behind, unrecorded, and every later start failed with `table "card_codes" already exists`.
  it('crash trial "migration": a run cut short inside a migration leaves nothing of the run applied', async () => {
    db = openSqlite(`${tempDir('migrate-')}/inbox-triage.db`);
    const real = migrationsFor('sqlite');
    const cutShort = {
      ...real,
      '9999-cut-short': {
        async up(k: Parameters<(typeof real)[string]['up']>[0]) {
          await sql`create table half_done (x integer)`.execute(k);
          throw new Error('the process stops here');
        },
      },
    };
    await expect(migrateToLatest(db, cutShort)).rejects.toThrow(MigrationError);
    const tables = db.sqlite
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")
      .pluck()
      .all();
    expect(tables).not.toContain('half_done');
    expect(tables).not.toContain('card_codes');
    expect(await pendingMigrations(db)).toEqual(Object.keys(real));
    // The next start applies everything.
    expect(await migrateToLatest(db)).toEqual(Object.keys(real));
    expect(await pendingMigrations(db)).toEqual([]);
  });

  it('a database a newer version migrated says so, instead of "corrupted migrations"', async () => {
    db = openSqlite(`${tempDir('migrate-')}/inbox-triage.db`);
    await migrateToLatest(db);
    db.sqlite
      .prepare('insert into schema_migrations (name, timestamp) values (?, ?)')
      .run('0999-from-a-later-version', new Date().toISOString());
    const failure = migrateToLatest(db);
    await expect(failure).rejects.toThrow(MigrationError);
    await expect(failure).rejects.toThrow(
      'the database was migrated by a newer version of Inbox Triage (0999-from-a-later-version, unknown to this one)',
    );
  });

  it('a database that cannot be read is named as the failure, not a migration', async () => {
    db = openSqlite(`${tempDir('migrate-')}/inbox-triage.db`);
    // Not the table Kysely keeps: reading which migrations ran fails before any runs.
    db.sqlite.exec('create table schema_migrations (x integer)');
    const failure = migrateToLatest(db);
    await expect(failure).rejects.toThrow(MigrationError);
    await expect(failure).rejects.toThrow(/^could not migrate the database: /);
  });
});
