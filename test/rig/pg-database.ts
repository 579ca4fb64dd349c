import { randomBytes } from 'node:crypto';
import pg from 'pg';

// Kept apart from pg-cluster.ts so test files (pg.ts) can create databases
// without loading the server-management code.

const DB_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Creates a database through `adminUrl` (a role with CREATEDB, which becomes the
 * owner) and returns the same url pointing at the new database.
 */
export async function createDatabaseOn(adminUrl: string, name?: string): Promise<string> {
  const dbName = name ?? `test_${randomBytes(6).toString('hex')}`;
  if (!DB_NAME.test(dbName)) {
    throw new Error(`Invalid database name ${JSON.stringify(dbName)}: use lower-case letters, digits and _`);
  }
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${dbName}"`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  return url.toString();
}
