// The database a trial's service runs on, read from outside while the service runs: SQLite in the data directory,
// or a fresh PostgreSQL database. The crash trials run on both (test/rig/crash-trials.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Config, Secrets } from '../../src/config/config.ts';

export type TrialEngineName = 'sqlite' | 'postgres';

/** One database of a trial's service. */
export interface TrialStore {
  /** What the service is started with to use it, beside `DATA_DIR`. */
  readonly env: Record<string, string>;
  readonly config: Config['database'];
  /** What an in-process app on it needs besides the encryption key. */
  readonly secrets: Partial<Pick<Secrets, 'databaseUrl'>>;
  /**
   * The rows of a read, with `?` placeholders. `wait: false` throws rather than wait for a writer (SQLite; a
   * PostgreSQL reader never waits for one).
   */
  rows(sql: string, params?: readonly unknown[], o?: { wait?: boolean }): Promise<Record<string, unknown>[]>;
  /** Every object of the schema, and the migrations applied, a line each: equal text, equal schema. */
  schema(): Promise<string>;
  /**
   * Forgets what the agents' request budgets have counted. On PostgreSQL a node takes a twentieth of a budget at a
   * time and a killed node's share is lost for the rest of the minute (decision 0024); the trials kill a node every
   * few seconds, as no deployment does, and would otherwise spend a minute's budget in about twenty trials. The same
   * on SQLite, which keeps the budgets in its file too (decision 0147); no node runs on it when they are forgotten.
   */
  forgetRequestBudgets(): Promise<void>;
  close(): Promise<void>;
}

/** Makes a store for a data directory. */
export type TrialEngine = { readonly name: TrialEngineName; store(dataDir: string): Promise<TrialStore> };

export const sqliteTrials: TrialEngine = {
  name: 'sqlite',
  store(dataDir) {
    const path = join(dataDir, 'inbox-triage.db');
    const read = <T>(wait: boolean, f: (db: Database.Database) => T): T => {
      const db = new Database(path, { readonly: true, fileMustExist: true, ...(!wait && { timeout: 0 }) });
      try {
        return f(db);
      } finally {
        db.close();
      }
    };
    return Promise.resolve({
      env: {},
      config: { kind: 'sqlite', path },
      secrets: {},
      rows: (sql, params = [], o = {}) =>
        Promise.resolve(
          read(o.wait !== false, (db) => db.prepare(sql).all(...params) as Record<string, unknown>[]),
        ),
      schema: () =>
        Promise.resolve(
          read(true, (db) => {
            const integrity = db.prepare('pragma integrity_check').pluck().get() as string;
            const objects = db
              .prepare(
                "select type, name, sql from sqlite_master where name not like 'sqlite_%' order by type, name",
              )
              .all() as { type: string; name: string; sql: string | null }[];
            const migrations = db
              .prepare('select name from schema_migrations order by name')
              .pluck()
              .all() as string[];
            return [
              `integrity ${integrity}`,
              ...objects.map((x) => `${x.type} ${x.name}: ${(x.sql ?? '').replace(/\s+/g, ' ')}`),
              ...migrations.map((m) => `migration ${m}`),
            ].join('\n');
          }),
        ),
      forgetRequestBudgets: () => {
        if (!existsSync(path)) return Promise.resolve();
        const db = new Database(path, { fileMustExist: true });
        try {
          const kept = db
            .prepare("select 1 from sqlite_master where type = 'table' and name = 'rate_limits'")
            .get();
          if (kept !== undefined) db.prepare('delete from rate_limits').run();
        } finally {
          db.close();
        }
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    });
  },
};

/** The schema's objects on PostgreSQL, each as the server describes it, in the database's own schema only. */
const PG_SCHEMA = [
  `select 'column ' || table_name || '.' || column_name || ': ' || data_type
     || coalesce(' default ' || column_default, '') || case when is_nullable = 'NO' then ' not null' else '' end
   from information_schema.columns where table_schema = current_schema() order by table_name, ordinal_position`,
  `select 'index ' || indexname || ': ' || indexdef from pg_indexes where schemaname = current_schema() order by 1`,
  `select 'constraint ' || conrelid::regclass || '.' || conname || ': ' || pg_get_constraintdef(oid)
   from pg_constraint where connamespace = current_schema()::regnamespace order by 1`,
  `select 'trigger ' || t.tgrelid::regclass || '.' || t.tgname || ': ' || pg_get_triggerdef(t.oid)
   from pg_trigger t join pg_class c on c.oid = t.tgrelid
   where not t.tgisinternal and c.relnamespace = current_schema()::regnamespace order by 1`,
  `select 'function ' || proname || ': ' || pg_get_functiondef(oid)
   from pg_proc where pronamespace = current_schema()::regnamespace order by 1`,
  `select 'migration ' || name from schema_migrations order by name`,
];

/** A fresh PostgreSQL database per store, from `createDatabase` (the test run's cluster, or the bench's). */
export function postgresTrials(createDatabase: () => Promise<string>): TrialEngine {
  return {
    name: 'postgres',
    async store() {
      const url = await createDatabase();
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      const numbered = (sql: string) => {
        let n = 0;
        return sql.replace(/\?/g, () => `$${String(++n)}`);
      };
      return {
        env: { DATABASE_URL: url },
        config: { kind: 'postgres' },
        secrets: { databaseUrl: url },
        rows: async (sql, params = []) =>
          (await pool.query<Record<string, unknown>>(numbered(sql), [...params])).rows,
        async schema() {
          const lines: string[] = [];
          for (const q of PG_SCHEMA)
            for (const row of (await pool.query<unknown[]>({ text: q, rowMode: 'array' })).rows)
              lines.push(String(row[0]).replace(/\s+/g, ' '));
          return lines.join('\n');
        },
        async forgetRequestBudgets() {
          await pool.query('delete from rate_limits');
        },
        close: () => pool.end(),
      };
    },
  };
}
