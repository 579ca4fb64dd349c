import { sql } from 'kysely';
import type { PostgresDb } from './database.ts';

/** The fewest connections a limit of the database grants this role here, and which limit it is. */
export interface ConnectionAllowance {
  readonly connections: number;
  readonly limit: string;
}

/**
 * What the server lets this role open at most (decision 0133): `max_connections` less those reserved for superusers
 * (and, from PostgreSQL 16, for `pg_use_reserved_connections`), the role's `CONNECTION LIMIT` and the database's.
 * Behind a pooler these are the server's, which a session pooler spends one for one.
 */
export async function connectionAllowance(db: PostgresDb): Promise<ConnectionAllowance> {
  const { rows } = await sql<{ server: number; role: number; database: number }>`
    select current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int
             - coalesce(nullif(current_setting('reserved_connections', true), '')::int, 0) as server,
           (select rolconnlimit from pg_roles where rolname = current_user) as role,
           (select datconnlimit from pg_database where datname = current_database()) as database`.execute(
    db.kysely,
  );
  const [r] = rows;
  if (r === undefined) throw new Error('the database did not say what connections it allows');
  // A CONNECTION LIMIT of -1 is none.
  const limits = [
    { connections: r.server, limit: 'max_connections, less the reserved' },
    { connections: r.role, limit: "the role's CONNECTION LIMIT" },
    { connections: r.database, limit: "the database's CONNECTION LIMIT" },
  ].filter((l) => l.connections >= 0);
  return limits.reduce((a, b) => (b.connections < a.connections ? b : a));
}
