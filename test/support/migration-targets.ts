import { migrateToLatest, type Db, type DbTarget } from '../../src/adapters/storage/index.ts';
import { migrationsFor } from '../../src/adapters/storage/migrations/index.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { tempDir } from './temp-dir.ts';

/** A fresh database of each engine, for a migration's test. */
export const migrationTargets = (prefix: string): { name: string; target: () => Promise<DbTarget> }[] => [
  { name: 'sqlite', target: () => Promise.resolve({ kind: 'sqlite', path: `${tempDir(prefix)}/t.db` }) },
  { name: 'postgres', target: async () => ({ kind: 'postgres', url: await freshPgDatabase() }) },
];

/** Migrates up to and including `name`, as an install of the version before the next migration is. */
export async function migrateTo(db: Db, name: string): Promise<void> {
  const upTo = Object.entries(migrationsFor(db.dialect)).filter(([n]) => n <= name);
  await migrateToLatest(db, Object.fromEntries(upTo));
}
