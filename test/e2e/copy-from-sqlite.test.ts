import { describe, expect, it } from 'vitest';
import { holdInstanceLock } from '../../src/adapters/storage/sqlite/instance-lock.ts';
import { sqlitePath } from '../../src/config/load-config.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { runCommand } from '../support/spawn-service.ts';
import { createTestApp, TEST_KEY } from '../support/test-app.ts';
import { tempDir } from '../support/temp-dir.ts';
import { somethingInEveryTable } from '../support/something-in-every-table.ts';

// Decision 0140: a service started with `npm start` on SQLite moves to PostgreSQL, to run several instances, with
// everything it keeps — the person's sign-in, their agents' keys and sign-ins, the inbox and its index, an undo
// handle, the activity — working the same on the other side.
describe('inbox-triage copy-from-sqlite', () => {
  it('moves everything to an empty PostgreSQL database, once, with the same key, never beside a running service', async () => {
    const dataDir = tempDir('copy-from-');
    const config = { dataDir, database: { kind: 'sqlite' as const, path: sqlitePath(dataDir) } };
    const before = await createTestApp({ config });
    const { worksOn } = await somethingInEveryTable(before);
    await before.close();

    const pgUrl = await freshPgDatabase();
    const env = { DATA_DIR: dataDir, DATABASE_URL: pgUrl, ENCRYPTION_KEY: TEST_KEY.toString('base64') };
    // Not beside the service: it would go on writing to what is being copied.
    const running = holdInstanceLock(sqlitePath(dataDir));
    const refused = await runCommand(env, 'copy-from-sqlite');
    running.release();
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.err).toContain('the service is running on');
    // Not with another key: the instances on PostgreSQL could not open the inbox's sign-in.
    const otherKey = await runCommand(
      { ...env, ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') },
      'copy-from-sqlite',
    );
    expect(otherKey.code).toBe(2);
    expect(otherKey.err).toContain('is not the key the SQLite database was set up with');

    const copied = await runCommand(env, 'copy-from-sqlite');
    expect(copied.err).toBe('');
    expect(copied.code).toBe(0);
    expect(copied.out).toMatch(/^Copied \d+ rows of \d+ tables from .*inbox-triage\.db into PostgreSQL\./);
    expect(copied.out).not.toContain(pgUrl);

    const after = await createTestApp({ pgUrl, config: { dataDir } });
    try {
      await worksOn(after);
    } finally {
      await after.close();
    }

    const twice = await runCommand(env, 'copy-from-sqlite');
    expect(twice.code).toBe(1);
    expect(twice.err).toContain('the PostgreSQL database already holds data');
  }, 90_000);

  it('says what to set when DATABASE_URL is not set, or there is no SQLite database', async () => {
    const none = await runCommand({ DATA_DIR: tempDir('copy-none-') }, 'copy-from-sqlite');
    expect(none.code).toBe(2);
    expect(none.err).toContain('set DATABASE_URL to the PostgreSQL database to copy into');
    const empty = tempDir('copy-empty-');
    const missing = await runCommand(
      { DATA_DIR: empty, DATABASE_URL: 'postgres://app:secret@127.0.0.1:1/x' },
      'copy-from-sqlite',
    );
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(`no SQLite database at ${sqlitePath(empty)}`);
    expect(missing.err).not.toContain('secret');
  });
});
