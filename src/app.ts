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
import { argon2PasswordHasher } from './adapters/crypto/argon2-password-hasher.ts';
import { flexibleRateLimiter } from './adapters/rate-limits/flexible-rate-limiter.ts';
import { AccountService } from './core/accounts/account-service.ts';
import type { PasswordHasher } from './core/accounts/password-hasher.ts';
import { ApiKeyService } from './core/api-keys/api-key-service.ts';
import type { RateLimiter } from './core/rate-limits/rate-limiter.ts';
import { SessionService } from './core/sessions/session-service.ts';
import { aead } from './lib/aead.ts';
import { prefixVerifier } from './transports/http/agent-gate.ts';
import { registerKeyRoutes } from './transports/rest/key-routes.ts';
import { registerRestApi } from './transports/rest/rest-api.ts';
import { registerWebApp } from './transports/web/web-app.ts';
import { metadataDocumentFetcher } from './adapters/http/metadata-document-fetcher.ts';
import type { ClientMetadataFetcher } from './oauth/client/client.ts';
import { SCOPE_MCP_TOOLS } from './oauth/oauth-config.ts';
import { OAuthProvider } from './oauth/oauth-provider.ts';
import { registerOAuthRoutes } from './transports/oauth/oauth-routes.ts';
import type { WebEnv } from './transports/web/web-env.ts';
import type { Hono as HonoApp } from 'hono';
import type { Principal } from './core/auth/principal.ts';
import { InboxService } from './core/inboxes/inbox-service.ts';
import { registerMcpRoute } from './transports/mcp/mcp-route.ts';
import { ToolRegistry } from './transports/mcp/tool-registry.ts';
import { ALL_TOOLS } from './transports/mcp/tools/index.ts';
import type { ToolServices } from './transports/mcp/tool-services.ts';

export interface AppOverrides {
  readonly clock?: Clock;
  readonly log?: Logger;
  /** An already-open database (tests share one per file). The app then does not close it. */
  readonly db?: Db;
  /** Skip running migrations on start (the `migrate` command and readiness tests). Default: migrate. */
  readonly migrate?: boolean;
  readonly hasher?: PasswordHasher;
  readonly limiter?: RateLimiter;
  /** Tests only: /mcp requests without credentials act as this principal (for the conformance suite). */
  readonly mcpUnauthenticatedAs?: { principal: Principal };
  /** Tests: serve Client ID Metadata Documents from a local server instead of the SSRF-guarded fetcher. */
  readonly clientMetadataFetcher?: ClientMetadataFetcher;
  /** Result size cap for tools (characters of JSON). */
  readonly maxToolResultChars?: number;
}

export interface Services {
  readonly accounts: AccountService;
  readonly sessions: SessionService;
  readonly apiKeys: ApiKeyService;
  readonly limiter: RateLimiter;
  readonly tools: ToolServices;
}

export interface App {
  readonly config: Config;
  readonly http: Hono<HttpEnv>;
  readonly fetch: (req: Request) => Response | Promise<Response>;
  readonly stores: Stores;
  readonly services: Services;
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
  const accessLog = overrides.log ?? createPinoLogger(config.logLevel, undefined, { redact: false });
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
  const services = createServices(config, stores, db, clock, overrides);

  const http = createRootApp({
    log,
    accessLog,
    readiness: {
      check: async () => {
        await db.kysely.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
        const pending = await pendingMigrations(db);
        return pending.length === 0 ? undefined : `pending migrations: ${pending.join(', ')}`;
      },
    },
  });

  const cookies = { secure: config.baseUrl.startsWith('https:') };
  const oauth = new OAuthProvider({
    config: {
      issuer: config.baseUrl,
      resource: `${config.baseUrl}/mcp`,
      scopes: [SCOPE_MCP_TOOLS],
      redirectAllowlist: config.oauthRedirectAllowlist,
      accessTokenTtlMs: 3_600_000,
      refreshTokenTtlMs: 30 * DAY_MS,
      codeTtlMs: 60_000,
      requestTtlMs: 10 * 60_000,
    },
    clock,
    accounts: stores.accounts,
    clientStore: stores.oauthClients,
    requestStore: stores.oauthRequests,
    grantStore: stores.grants,
    fetcher: overrides.clientMetadataFetcher ?? metadataDocumentFetcher(),
  });
  registerOAuthRoutes(http, oauth);
  registerKeyRoutes(http as unknown as HonoApp<WebEnv>, {
    apiKeys: services.apiKeys,
    sessions: services.sessions,
    cookies,
    baseUrl: config.baseUrl,
  });
  registerRestApi(http, {
    verifier: prefixVerifier({ itk_: services.apiKeys }),
    inboxes: stores.inboxes,
    limiter: services.limiter,
    clock,
    trustProxy: config.trustProxy,
    perMinute: config.rateLimits.apiPerMinute,
  });
  const registry = new ToolRegistry(ALL_TOOLS, {
    audit: stores.audit,
    maxResultChars: overrides.maxToolResultChars ?? 100_000,
  });
  registerMcpRoute(http, {
    registry,
    services: services.tools,
    verifier: prefixVerifier({ itk_: services.apiKeys, ita_: oauth.tokens }),
    accounts: stores.accounts,
    limiter: services.limiter,
    clock,
    baseUrl: config.baseUrl,
    trustProxy: config.trustProxy,
    perMinute: config.rateLimits.mcpPerMinute,
    allowedOrigins: new Set(config.mcpAllowedOrigins),
    ...(overrides.mcpUnauthenticatedAs !== undefined && {
      unauthenticatedAs: overrides.mcpUnauthenticatedAs,
    }),
  });
  registerWebApp(http, {
    accounts: services.accounts,
    accountStore: stores.accounts,
    sessions: services.sessions,
    apiKeys: services.apiKeys,
    audit: stores.audit,
    oauth,
    limiter: services.limiter,
    clock,
    cookies,
    flash: aead(secrets.encryptionKey, 'flash'),
    baseUrl: config.baseUrl,
    openSignup: config.openSignup,
    trustProxy: config.trustProxy,
    sessionTtlSeconds: config.sessionDays * 86_400,
    anonymousPerMinute: config.rateLimits.anonymousPerMinute,
  });

  return {
    config,
    http,
    fetch: (req) => http.fetch(req),
    stores,
    services,
    db,
    log,
    clock,
    close: async () => {
      if (overrides.db === undefined) await db.close();
    },
  };
}

const MINUTE_S = 60;
const DAY_MS = 86_400_000;

function createServices(config: Config, stores: Stores, db: Db, clock: Clock, o: AppOverrides): Services {
  const limiter =
    o.limiter ??
    (db.pgPool === undefined
      ? flexibleRateLimiter({ kind: 'memory' })
      : flexibleRateLimiter({ kind: 'postgres', pool: db.pgPool }));
  const hasher = o.hasher ?? argon2PasswordHasher();
  const failures = config.rateLimits.signinFailures;
  return {
    limiter,
    accounts: new AccountService({
      accounts: stores.accounts,
      invitations: stores.invitations,
      settings: stores.settings,
      hasher,
      clock,
      policy: {
        trialDays: config.trialDays,
        openSignup: config.openSignup,
        setupLinkTtlMs: 60 * MINUTE_S * 1000,
        invitationTtlMs: 7 * DAY_MS,
      },
    }),
    sessions: new SessionService({
      accounts: stores.accounts,
      sessions: stores.sessions,
      hasher,
      limiter,
      clock,
      policy: {
        ttlMs: config.sessionDays * DAY_MS,
        failuresPerAccount: { name: 'signin-account', points: failures, windowSeconds: 15 * MINUTE_S },
        failuresPerIp: { name: 'signin-ip', points: failures * 4, windowSeconds: 15 * MINUTE_S },
      },
    }),
    apiKeys: new ApiKeyService({ keys: stores.apiKeys, accounts: stores.accounts, clock }),
    tools: { inboxes: new InboxService({ inboxes: stores.inboxes }), audit: stores.audit },
  };
}

export function databaseTarget(config: Config, secrets: Secrets) {
  if (config.database.kind === 'sqlite') return { kind: 'sqlite', path: config.database.path } as const;
  if (secrets.databaseUrl === undefined) throw new Error('DATABASE_URL missing for a postgres config');
  return { kind: 'postgres', url: secrets.databaseUrl } as const;
}
