import { Migrator, type MigrationResultSet } from 'kysely/migration';
import type { Db } from './database.ts';
import { migrationsFor } from './migrations/index.ts';

function migrator(db: Db): Migrator {
  const migrations = migrationsFor(db.dialect);
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

/** Applies every pending migration; returns the names applied now. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const { error, results }: MigrationResultSet = await migrator(db).migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(
      `migration ${failed} failed: ${error instanceof Error ? error.message : 'unknown error'}`,
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Names of migrations the code knows but the database has not applied. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const all = await migrator(db).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
