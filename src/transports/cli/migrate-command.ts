import { databaseTarget, refuseSharedSessions, waitForDatabaseOf } from '../../app.ts';
import { migrateToLatest, openDatabase } from '../../adapters/storage/index.ts';
import { readConfiguration } from '../../config/index.ts';
import { EXIT, type CliIo } from './cli-io.ts';

/** Applies pending migrations and exits; `serve` does the same on start. */
export async function migrateCommand(io: CliIo): Promise<number> {
  const { config, secrets } = readConfiguration(io.env, io.cwd);
  const db = openDatabase(databaseTarget(config, secrets));
  try {
    // As `serve` does: PostgreSQL may come up after this command starts (a compose job; decision 0057).
    await waitForDatabaseOf(config, db, ({ reason, retryInMs }) => {
      io.err(
        `inbox-triage: waiting for the database (${reason}); trying again in ${(retryInMs / 1000).toFixed(1)} s`,
      );
    });
    await refuseSharedSessions(db);
    const applied = await migrateToLatest(db);
    io.out(applied.length === 0 ? 'Database is up to date.' : `Applied: ${applied.join(', ')}`);
    return EXIT.ok;
  } finally {
    await db.close();
  }
}
