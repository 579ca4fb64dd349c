import type { Hono } from 'hono';
import type { Config, Secrets } from './config/index.ts';
import { createPinoLogger } from './adapters/logging/pino-logger.ts';
import {
  createStores,
  migrateToLatest,
  openDatabase,
  pendingMigrations,
  type Db,
  type Stores,
} from './adapters/storage/index.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import type { Logger } from './lib/logger.ts';
import type { HttpEnv } from './transports/http/http-env.ts';
import { createRootApp } from './transports/http/root-app.ts';

export interface AppOverrides {
  readonly clock?: Clock;
  readonly log?: Logger;
  /** An already-open database (tests share one per file). The app then does not close it. */
  readonly db?: Db;
  /** Skip running migrations on start (the `migrate` command and readiness tests). Default: migrate. */
  readonly migrate?: boolean;
}

export interface App {
  readonly config: Config;
  readonly http: Hono<HttpEnv>;
  readonly fetch: (req: Request) => Response | Promise<Response>;
  readonly stores: Stores;
  readonly db: Db;
  readonly log: Logger;
  readonly clock: Clock;
  close(): Promise<void>;
}

/**
 * The composition root: the only place that chooses adapters and wires them to use-cases and transports.
 * Tests call it with overrides (clock, database, logger) and exercise the returned `fetch` in-process.
 */
export async function createApp(
  config: Config,
  secrets: Secrets,
  overrides: AppOverrides = {},
): Promise<App> {
  const log = overrides.log ?? createPinoLogger(config.logLevel);
  const clock = overrides.clock ?? systemClock;
  const db = overrides.db ?? openDatabase(databaseTarget(config, secrets));
  try {
    if (overrides.migrate !== false) {
      const applied = await migrateToLatest(db);
      if (applied.length > 0) log.info({ applied, dialect: db.dialect }, 'migrations applied');
    }
  } catch (e) {
    if (overrides.db === undefined) await db.close();
    throw e;
  }
  const stores = createStores(db);

  const http = createRootApp({
    log,
    readiness: {
      check: async () => {
        await db.kysely.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
        const pending = await pendingMigrations(db);
        return pending.length === 0 ? undefined : `pending migrations: ${pending.join(', ')}`;
      },
    },
  });

  return {
    config,
    http,
    fetch: (req) => http.fetch(req),
    stores,
    db,
    log,
    clock,
    close: async () => {
      if (overrides.db === undefined) await db.close();
    },
  };
}

export function databaseTarget(config: Config, secrets: Secrets) {
  if (config.database.kind === 'sqlite') return { kind: 'sqlite', path: config.database.path } as const;
  if (secrets.databaseUrl === undefined) throw new Error('DATABASE_URL missing for a postgres config');
  return { kind: 'postgres', url: secrets.databaseUrl } as const;
}
