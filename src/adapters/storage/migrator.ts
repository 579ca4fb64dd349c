import { sql } from 'kysely';
import { Migrator, type Migration, type MigrationResultSet } from 'kysely/migration';
import type { Db } from './database.ts';
import { attachLegacyAudit } from './migrations/0009-audit-home.ts';
import { migrationsFor } from './migrations/index.ts';

function migrator(db: Db, migrations = migrationsFor(db.dialect)): Migrator {
  return new Migrator({
    db: db.kysely,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    // Several processes may start at once on PostgreSQL; Kysely takes a lock table so only one migrates.
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

/**
 * Applies every pending migration, all in one transaction on both engines (open-sqlite.ts tells Kysely SQLite's DDL
 * is transactional too), so a process killed part-way leaves the schema as it was; returns the names applied now.
 * `migrations` replaces the real ones in tests.
 */
export async function migrateToLatest(
  db: Db,
  migrations: Record<string, Migration> = migrationsFor(db.dialect),
): Promise<string[]> {
  // ATTACH cannot run inside a transaction: the audit file of a 0012 version is attached before (migration 0009).
  const legacy = db.dialect === 'sqlite' ? attachLegacyAudit(db.sqlite, db.sqlite.name) : undefined;
  let outcome: MigrationResultSet | undefined;
  try {
    // On PostgreSQL on a session with no deadline: a migration's statement may take minutes on a large database, and
    // a node waits on the migration lock for as long as another node migrates (decision 0063).
    outcome = await (db.dialect === 'postgres'
      ? db.unbounded((own) => migrator(own, migrations).migrateToLatest())
      : migrator(db, migrations).migrateToLatest());
  } finally {
    legacy?.done(outcome !== undefined && outcome.error === undefined);
  }
  const { error, results } = outcome;
  if (error !== undefined) {
    const newer = await unknownApplied(db, migrations);
    if (newer.length > 0)
      throw new MigrationError(
        `the database was migrated by a newer version of Inbox Triage (${newer.join(', ')}, unknown to this one): ` +
          'run that version or a later one, or restore the backup taken before the upgrade',
      );
    const why = error instanceof Error ? error.message : 'unknown error';
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    // Before any migration runs (the database unreachable, its migration table unreadable) no name applies.
    throw new MigrationError(
      failed === undefined ? `could not migrate the database: ${why}` : `migration ${failed} failed: ${why}`,
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Migrations the database records as applied that this code does not know: a newer version ran on it. */
async function unknownApplied(db: Db, known: Record<string, Migration>): Promise<string[]> {
  try {
    const rows = await sql<{ name: string }>`select name from schema_migrations order by name`.execute(
      db.kysely,
    );
    return rows.rows.map((r) => r.name).filter((name) => !(name in known));
  } catch {
    return []; // no table yet, or the database unreachable: the error at hand says more
  }
}

/** Names of migrations the code knows but the database has not applied. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const all = await migrator(db).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
