import { restoredNotice } from '../core/settings/restored-copy.ts';
import type { Hono } from 'hono';
import type { AppOverrides } from './overrides.ts';
import type { Config, Secrets } from '../config/index.ts';
import { pendingMigrations, type Db, type Stores } from '../adapters/storage/index.ts';
import { aead } from '../lib/aead.ts';
import type * as Qr from 'uqr';
import { LazyModule } from '../adapters/lazy-module.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { VerifiedCache } from '../core/auth/verified-cache.ts';
import { prefixVerifier } from '../transports/http/agent-gate.ts';
import { registerAnonymousLimits } from '../transports/http/anonymous-limits.ts';
import { registerAttachmentRoute } from '../transports/http/attachment-route.ts';
import { registerMetricsRoute } from '../transports/http/metrics-route.ts';
import { hostCheck } from '../transports/http/host-check.ts';
import type { PrometheusMetrics } from '../adapters/metrics/prometheus-metrics.ts';
import type { HttpEnv } from '../transports/http/http-env.ts';
import type { NodeLane } from '../transports/http/serve.ts';
import { createRootApp } from '../transports/http/root-app.ts';
import { createMcpEndpoint } from '../transports/mcp/mcp-endpoint.ts';
import { mcpHttp } from '../transports/mcp/mcp-http.ts';
import { mcpNodeAdapter } from '../transports/mcp/mcp-node-adapter.ts';
import { mcpWebAdapter } from '../transports/mcp/mcp-web-adapter.ts';
import { ToolRegistry } from '../transports/mcp/tool-registry.ts';
import { ALL_TOOLS } from '../transports/mcp/tools/index.ts';
import { registerOAuthCors, registerOAuthRoutes } from '../transports/oauth/oauth-routes.ts';
import { registerKeyRoutes } from '../transports/rest/key-routes.ts';
import { registerRestApi } from '../transports/rest/rest-api.ts';
import { registerWebApp } from '../transports/web/web-app.ts';
import type { WebEnv } from '../transports/web/web-env.ts';
import type { Services } from './services.ts';

/** Loaded when a person sets up two-step sign-in, not at start. */
const qrModule = new LazyModule<typeof Qr>('uqr');

/** Builds the HTTP surface on the services. Part of the composition root (see app.ts). */
export function buildHttp(c: {
  config: Config;
  secrets: Secrets;
  stores: Stores;
  db: Db;
  clock: Clock;
  log: Logger;
  accessLog: Logger;
  /** Puts the verified-credential cache in front of the agent-facing verifiers. */
  credentials: VerifiedCache;
  services: Services;
  overrides: AppOverrides;
  metrics: PrometheusMetrics;
}): {
  http: Hono<HttpEnv>;
  /** `/mcp` on node:http (production), and the same for a web Request (`App.fetch`); undefined off /mcp. */
  lane: NodeLane;
  mcpFetch: (req: Request) => Promise<Response> | undefined;
} {
  const { config, secrets, stores, db, clock, log, services, credentials, overrides, metrics } = c;
  const http = createRootApp({
    log,
    accessLog: c.accessLog,
    metrics,
    readiness: {
      check: async () => {
        await db.kysely.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
        const pending = await pendingMigrations(db);
        if (pending.length > 0) return `pending migrations: ${pending.join(', ')}`;
        return services.queue.ready() ? undefined : 'job queue not running';
      },
    },
  });
  const cookies = { secure: config.baseUrl.startsWith('https:') };

  // Before any route: a limit added after the route that answers a path stops nothing.
  registerOAuthCors(http);
  registerAnonymousLimits(http, {
    limiter: services.limiter,
    trustProxy: config.trustProxy,
    perMinute: config.rateLimits.anonymousPerMinute,
  });
  registerMetricsRoute(http, { token: secrets.metricsToken, render: () => metrics.render() });
  registerAttachmentRoute(http, {
    links: services.attachments,
    limiter: services.limiter,
    trustProxy: config.trustProxy,
  });
  registerKeyRoutes(http as unknown as Hono<WebEnv>, {
    apiKeys: services.apiKeys,
    inboxes: services.tools.inboxes,
    sessions: services.sessions,
    cookies,
    baseUrl: config.baseUrl,
    trustProxy: config.trustProxy,
  });
  registerRestApi(http, {
    verifier: credentials.wrap(prefixVerifier({ itk_: services.apiKeys })),
    inboxes: services.tools.inboxes,
    drafts: services.tools.drafts,
    limiter: services.limiter,
    clock,
    trustProxy: config.trustProxy,
    perMinute: config.rateLimits.apiPerMinute,
    audit: stores.audit,
    log,
    openApi: { baseUrl: config.baseUrl, secureCookies: cookies.secure },
  });
  const mcp = createMcpEndpoint({
    registry: new ToolRegistry(ALL_TOOLS, {
      audit: stores.audit,
      maxResultChars: overrides.maxToolResultChars ?? 100_000,
      metrics,
    }),
    services: services.tools,
    verifier: credentials.wrap(prefixVerifier({ itk_: services.apiKeys, ita_: services.oauth.tokens })),
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
  const serveMcp = mcpHttp(mcp, {
    log,
    accessLog: c.accessLog,
    metrics,
    checkHost: hostCheck(config.baseUrl, log, config.trustProxy),
  });
  const lane = mcpNodeAdapter(serveMcp, { trustProxy: config.trustProxy });
  const mcpFetch = mcpWebAdapter(serveMcp, { trustProxy: config.trustProxy });
  registerWebApp(http, {
    accounts: services.accounts,
    sessions: services.sessions,
    secondFactor: services.secondFactor,
    passkeys: services.passkeys,
    qrSvg: (text) => qrModule.load().renderSVG(text, { border: 2, pixelSize: 6 }),
    apiKeys: services.apiKeys,
    audit: stores.audit,
    activity: services.activity,
    undo: services.tools.undo,
    sending: services.tools.sending,
    vips: services.tools.vips,
    unsubscribe: services.tools.unsubscribe,
    screening: services.tools.screening,
    inboxStatus: services.inboxStatus,
    syncSoon: (inbox) => {
      services.scheduler.syncSoon(inbox);
    },
    profiles: services.tools.profiles,
    oauth: services.oauth,
    inboxes: services.tools.inboxes,
    limiter: services.limiter,
    clock,
    cookies,
    flash: aead(secrets.encryptionKey, 'flash'),
    baseUrl: config.baseUrl,
    openSignup: config.openSignup,
    trustProxy: config.trustProxy,
    sessionTtlSeconds: config.sessionDays * 86_400,
    restored: () => restoredNotice(stores.settings, clock.now()),
  });
  // After the pages: /oauth/authorize answers with a page, which gets the pages' headers only from middleware that
  // comes before it.
  registerOAuthRoutes(http, services.oauth);
  return { http, lane, mcpFetch };
}
