import type { Hono } from 'hono';
import { ConfigError, type Config, type Secrets } from './config/index.ts';
import { sqlitePath } from './config/load-config.ts';
import { createPinoLogger } from './adapters/logging/pino-logger.ts';
import {
  copyPostgresToSqlite,
  copySqliteToPostgres,
  createStores,
  markAsCopy,
  migrateToLatest,
  openDatabase,
  openSqlite,
  sessionsShared,
  SharedSessionsError,
  takeUpRestoredCopy,
  waitForDatabase,
  type CopiedTable,
  type Db,
  type WaitOptions,
  type Stores,
} from './adapters/storage/index.ts';
import { clusterClock } from './compose/cluster-clock.ts';
import { connectionsWarning } from './compose/database-connections.ts';
import { reportCredentialChanges } from './compose/credential-changes.ts';
import {
  adoptEncryptionKey,
  checkEncryptionKey,
  recordedKeyDiffers,
  rotateEncryptionKey,
} from './compose/key-check.ts';
import { takeUpCopy } from './compose/restored-copy.ts';
import type { RestoredCopy } from './core/settings/restored-copy.ts';
import type { Resealed } from './adapters/storage/key-rotation.ts';
import { PrometheusMetrics } from './adapters/metrics/prometheus-metrics.ts';
import { buildHttp } from './compose/http.ts';
import { buildServices, type Services } from './compose/services.ts';
import { VerifiedCache } from './core/auth/verified-cache.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import type { Logger } from './lib/logger.ts';
import type { HttpEnv } from './transports/http/http-env.ts';
import type { NodeLane } from './transports/http/serve.ts';

export type { Services } from './compose/services.ts';
export type { AppOverrides } from './compose/overrides.ts';
import type { AppOverrides } from './compose/overrides.ts';

export interface App {
  readonly config: Config;
  readonly http: Hono<HttpEnv>;
  /** Every route for a web Request: `/mcp` through the same code as `lane` (mcp-http.ts), the rest through Hono. */
  readonly fetch: (req: Request) => Response | Promise<Response>;
  /** `/mcp` served on `node:http` ahead of Hono (mcp-node-adapter.ts); pass it to `listen`. */
  readonly lane: NodeLane;
  readonly stores: Stores;
  readonly services: Services;
  readonly db: Db;
  readonly log: Logger;
  readonly clock: Clock;
  /**
   * Starts background work — sync, the sweep for work a killed process left unfinished, WAL checkpoints in a worker
   * thread (SQLite) — as the `serve` command does; tests call it when they need it.
   */
  startBackground(): void;
  close(): Promise<void>;
}

/**
 * `inbox-triage key adopt`: makes this instance's key the database's, after the key the database was set up with was
 * lost (decision 0042). Migrates first, so it works on a database that is not yet up to date.
 */
export async function adoptKey(config: Config, secrets: Secrets): Promise<void> {
  const db = openDatabase(databaseTarget(config, secrets));
  try {
    await refuseSharedSessions(db);
    await migrateToLatest(db);
    await adoptEncryptionKey(createStores(db).settings, secrets.encryptionKey, systemClock.now());
  } finally {
    await db.close();
  }
}

/**
 * `inbox-triage key rotate` (decision 0066): every stored mail credential re-sealed under `next`, which becomes the
 * database's key, in one transaction. Refused while an instance runs on the database (the caller holds the SQLite
 * instance lock; on PostgreSQL the nodes' watch sessions are counted).
 */
export async function rotateKey(config: Config, secrets: Secrets, next: Buffer): Promise<Resealed> {
  const db = openDatabase(databaseTarget(config, secrets));
  try {
    await refuseSharedSessions(db);
    await migrateToLatest(db);
    return await rotateEncryptionKey(db, secrets.encryptionKey, next, systemClock.now());
  } finally {
    await db.close();
  }
}

/**
 * `inbox-triage after-restore` (decision 0137): marks the database as a copy made at `copyMadeAt` (null: not known)
 * and withdraws what may have been used since, as a start on a copy `backup` made does. Undefined when an instance
 * starting at the same moment took the copy up first. It migrates nothing: run before an older version starts on the
 * copy (an upgrade taken back), it leaves a database that version still opens.
 */
export async function afterRestore(
  config: Config,
  secrets: Secrets,
  copyMadeAt: Date | null,
): Promise<RestoredCopy | undefined> {
  const db = openDatabase(databaseTarget(config, secrets));
  try {
    await refuseSharedSessions(db);
    if (!(await db.kysely.introspection.getTables()).some((t) => t.name === 'settings'))
      throw new ConfigError('the database holds no Inbox Triage data: is it the one restored?');
    const now = systemClock.now();
    await markAsCopy(db, copyMadeAt, now);
    return await takeUpRestoredCopy(db, now);
  } finally {
    await db.close();
  }
}

/**
 * `inbox-triage copy-to-sqlite` (decision 0152): every row of the PostgreSQL database of `DATABASE_URL` copied into a
 * new SQLite database at `path`, both migrated first, the way back to one instance. Refused while an instance runs on
 * PostgreSQL (its sessions are counted, as for a key rotation) and unless the configured key is the database's — the
 * service on SQLite would refuse it. The caller makes sure nothing is at `path` and holds its instance lock.
 */
export async function copyToSqlite(config: Config, secrets: Secrets, path: string): Promise<CopiedTable[]> {
  const source = openDatabase(databaseTarget(config, secrets));
  try {
    if (source.dialect !== 'postgres') throw new ConfigError('DATABASE_URL: the PostgreSQL database to copy from');
    await refuseSharedSessions(source);
    await migrateToLatest(source);
    if (await recordedKeyDiffers(createStores(source).settings, secrets.encryptionKey))
      throw new ConfigError(
        'ENCRYPTION_KEY is not the key the PostgreSQL database was set up with: copy with that key, and start the ' +
          'service on SQLite with it',
      );
    const target = openSqlite(path);
    try {
      await migrateToLatest(target);
      return await copyPostgresToSqlite(source, target);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/**
 * `inbox-triage copy-from-sqlite` (decision 0140): every row of the SQLite database in `DATA_DIR` copied into the
 * empty PostgreSQL database of `DATABASE_URL`, both migrated first, in one transaction. Refused unless the configured
 * key is the SQLite database's (the instances on PostgreSQL would refuse it) — the caller holds SQLite's instance
 * lock, so no service writes to the source meanwhile.
 */
export async function copyFromSqlite(config: Config, secrets: Secrets): Promise<CopiedTable[]> {
  const source = openSqlite(sqlitePath(config.dataDir));
  try {
    await migrateToLatest(source);
    if (await recordedKeyDiffers(createStores(source).settings, secrets.encryptionKey))
      throw new ConfigError(
        'ENCRYPTION_KEY (or DATA_DIR/encryption.key) is not the key the SQLite database was set up with: copy with ' +
          'that key, and start the instances on PostgreSQL with it',
      );
    const target = openDatabase(databaseTarget(config, secrets));
    try {
      if (target.dialect !== 'postgres')
        throw new ConfigError('DATABASE_URL: the PostgreSQL database to copy into');
      await refuseSharedSessions(target);
      await migrateToLatest(target);
      return await copySqliteToPostgres(source, target);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/**
 * The composition root: the only place that chooses adapters and wires them to use-cases and transports
 * (services in compose/services.ts, the HTTP surface in compose/http.ts). Tests call it with overrides (clock,
 * database, logger, connectors) and exercise the returned `fetch` in-process.
 */
export async function createApp(
  config: Config,
  secrets: Secrets,
  overrides: AppOverrides = {},
): Promise<App> {
  const log = overrides.log ?? createPinoLogger(config.logLevel);
  const accessLog = overrides.log ?? createPinoLogger(config.logLevel, undefined, { redact: false });
  const db = overrides.db ?? openDatabase(databaseTarget(config, secrets));
  try {
    // PostgreSQL may come up after the service (compose, boot order): wait for it rather than exit (decision 0057).
    if (overrides.db === undefined)
      await waitForDatabaseOf(
        config,
        db,
        ({ attempt, reason, retryInMs }) => {
          log.warn({ attempt, retryInMs, err: reason }, 'waiting for the database to accept connections');
        },
        overrides.stopping,
      );
    if (overrides.db === undefined) await refuseSharedSessions(db);
    if (overrides.db === undefined && db.dialect === 'postgres') {
      const warning = await connectionsWarning(db);
      if (warning !== undefined) log.warn(warning.fields, warning.words);
    }
    if (overrides.migrate !== false) {
      const applied = await migrateToLatest(db);
      if (applied.length > 0) log.info({ applied, dialect: db.dialect }, 'migrations applied');
    }
  } catch (e) {
    if (overrides.db === undefined) await db.close();
    throw e;
  }
  // Before anything compares a time another node wrote: which time the nodes keep (decision 0129).
  const cluster = await clusterClock(db, overrides, log).catch(async (e: unknown) => {
    if (overrides.db === undefined) await db.close();
    throw e;
  });
  const clock = cluster.clock;
  // Verified credentials are believed for a few seconds; every write that changes one clears them (decision 0010).
  const credentials = new VerifiedCache({ ttlMs: config.credentialCacheSeconds * 1000, clock });
  const stores = reportCredentialChanges(createStores(db), () => {
    credentials.clear();
  });
  try {
    // Before anything is written under it: the key the database was set up with (decision 0042).
    if (overrides.migrate !== false) {
      await checkEncryptionKey(stores.settings, secrets.encryptionKey, clock.now());
      // Before any request: what a restored copy holds open but may have been used since (decision 0137).
      await takeUpCopy(db, clock.now(), log);
    }
  } catch (e) {
    cluster.stop();
    if (overrides.db === undefined) await db.close();
    throw e;
  }
  // Without METRICS_TOKEN nobody can read /metrics: the counters cost little, the process's own sampling does not.
  const metrics = new PrometheusMetrics({ processMetrics: secrets.metricsToken !== undefined });
  const services = buildServices({ config, secrets, stores, db, clock, log, overrides, metrics });
  try {
    // Every node works the shared jobs (syncs asked for by tools and watchers) from the start.
    if (overrides.workJobs !== false) await services.queue.start();
  } catch (e) {
    cluster.stop();
    await services.release();
    if (overrides.db === undefined) await db.close();
    throw e;
  }
  const { http, lane, mcpFetch } = buildHttp({
    config,
    secrets,
    stores,
    db,
    clock,
    log,
    accessLog,
    services,
    credentials,
    overrides,
    metrics,
  });

  return {
    config,
    http,
    fetch: (req) => mcpFetch(req) ?? http.fetch(req),
    lane,
    stores,
    services,
    db,
    log,
    clock,
    startBackground: () => {
      db.startBackground((e) => {
        log.warn(
          { err: e.message },
          'background WAL checkpoints failing; the service checkpoints itself instead',
        );
      });
      services.scheduler.start();
      services.queue.every('sweep-unfinished', 5 * 60_000);
      void services.queue.enqueue('sweep-unfinished', 'sweep-unfinished');
      services.queue.every('sweep-expired', 60 * 60_000);
      void services.queue.enqueue('sweep-expired', 'sweep-expired');
    },
    close: async () => {
      cluster.stop();
      await services.scheduler.stop();
      await services.queue.stop();
      await services.release();
      if (overrides.db === undefined) await db.close();
    },
  };
}

/**
 * Refuses a PostgreSQL reached through a pooler that shares one session among clients (decision 0131): the service's
 * locks — an inbox's, a watcher's, the migrations' — last as long as a session, and such a pooler hands them on.
 */
export async function refuseSharedSessions(db: Db): Promise<void> {
  if (db.dialect !== 'postgres') return;
  const shared = await sessionsShared(db.pool, db.url, db.deadlineMs);
  if (shared !== undefined) throw new SharedSessionsError(shared);
}

/** Waits up to DATABASE_WAIT_SECONDS for PostgreSQL to accept connections; `onWait` is told before each pause. */
export function waitForDatabaseOf(
  config: Config,
  db: Db,
  onWait: NonNullable<WaitOptions['onWait']>,
  signal?: AbortSignal,
): Promise<void> {
  return waitForDatabase(db, { waitMs: config.databaseWaitSeconds * 1000, signal, onWait });
}

export function databaseTarget(config: Config, secrets: Secrets) {
  if (config.database.kind === 'sqlite') return { kind: 'sqlite', path: config.database.path } as const;
  if (secrets.databaseUrl === undefined) throw new Error('DATABASE_URL missing for a postgres config');
  return {
    kind: 'postgres',
    url: secrets.databaseUrl,
    deadlineMs: config.databaseQueryTimeoutSeconds * 1000,
    poolSize: config.databasePoolSize,
  } as const;
}
