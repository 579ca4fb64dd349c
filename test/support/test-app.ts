import { join } from 'node:path';
import { expect } from 'vitest';
import { createApp, type App, type AppOverrides } from '../../src/app.ts';
import type { Config, Secrets } from '../../src/config/index.ts';
import type { MailExchangeLookup } from '../../src/core/inboxes/provider-detection.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { DEFAULT_REDIRECT_ALLOWLIST } from '../../src/oauth/oauth-config.ts';
import { tempDir } from './temp-dir.ts';

export const TEST_KEY = Buffer.alloc(32, 1);

/** The rate limits tests run with unless they set their own: the defaults of production. */
export const TEST_RATE_LIMITS: Config['rateLimits'] = {
  apiPerMinute: 120,
  mcpPerMinute: 600,
  anonymousPerMinute: 60,
  signinFailures: 5,
  draftsPerInboxPerDay: 200,
  newLabelsPerInboxPerDay: 50,
};

/** A config for in-process tests: a temp data dir, SQLite unless a PostgreSQL url is given. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const dataDir = tempDir('app-');
  return {
    port: 0,
    host: '127.0.0.1',
    baseUrl: 'http://127.0.0.1:8787',
    dataDir,
    database: { kind: 'sqlite', path: join(dataDir, 'test.db') },
    logLevel: 'silent',
    shutdownTimeoutMs: 2000,
    keepAliveSeconds: 125,
    databasePoolSize: 10,
    databaseWaitSeconds: 0,
    databaseQueryTimeoutSeconds: 30,
    trustProxy: false,
    trialDays: 14,
    openSignup: false,
    sessionDays: 30,
    activityDays: 365,
    mcpAllowedOrigins: ['http://127.0.0.1:8787'],
    oauthRedirectAllowlist: [...DEFAULT_REDIRECT_ALLOWLIST],
    syncWindow: 1000,
    syncIntervalSeconds: 300,
    imapInsecureHosts: ['127.0.0.1', 'localhost'],
    imapReuseSeconds: 20,
    unsubscribeAllowedHosts: [],
    credentialCacheSeconds: 5, // as in production: tests exercise the verified-credential cache
    google: {
      clientId: null,
      issuer: 'https://accounts.google.com',
      gmailApiUrl: 'https://gmail.googleapis.com',
      pollSeconds: 30,
    },
    microsoft: {
      clientId: null,
      tenant: 'common',
      authority: 'https://login.microsoftonline.com',
      graphApiUrl: 'https://graph.microsoft.com',
      pollSeconds: 30,
    },
    rateLimits: TEST_RATE_LIMITS,
    ...overrides,
  };
}

const NO_MAIL_EXCHANGES: MailExchangeLookup = { exchangesOf: () => Promise.resolve([]) };

/** Rate limits no test run reaches on /api or /mcp (anonymous and sign-in limits as usual). */
export const NO_RATE_LIMITS: Config['rateLimits'] = {
  apiPerMinute: 1_000_000,
  mcpPerMinute: 1_000_000,
  anonymousPerMinute: 60,
  signinFailures: 5,
  draftsPerInboxPerDay: 1_000_000,
  newLabelsPerInboxPerDay: 1_000_000,
};

export async function createTestApp(
  opts: {
    config?: Partial<Config>;
    pgUrl?: string;
    overrides?: AppOverrides;
    metricsToken?: string;
    googleClientSecret?: string;
    microsoftClientSecret?: string;
  } = {},
): Promise<App> {
  // As in production: on PostgreSQL no credential is believed without a lookup (decision 0024).
  const config = testConfig(
    opts.pgUrl === undefined
      ? opts.config
      : { credentialCacheSeconds: 0, ...opts.config, database: { kind: 'postgres' } },
  );
  const secrets: Secrets = {
    encryptionKey: TEST_KEY,
    ...(opts.pgUrl !== undefined && { databaseUrl: opts.pgUrl }),
    ...(opts.metricsToken !== undefined && { metricsToken: opts.metricsToken }),
    ...(opts.googleClientSecret !== undefined && { googleClientSecret: opts.googleClientSecret }),
    ...(opts.microsoftClientSecret !== undefined && { microsoftClientSecret: opts.microsoftClientSecret }),
  };
  // No test asks the machine's DNS: a custom domain has no MX records unless a test serves some (test/rig/dns-server.ts).
  return createApp(config, secrets, {
    log: silentLogger,
    mailExchanges: NO_MAIL_EXCHANGES,
    ...opts.overrides,
  });
}

/** Calls the app in-process with a real Request, as Hono's own tests do. */
export function call(app: App, path: string, init: RequestInit = {}): Promise<Response> {
  return Promise.resolve(app.fetch(new Request(new URL(path, app.config.baseUrl), init)));
}

/** Request options carrying an API key (or any bearer token). */
export const bearer = (token: string): { headers: { authorization: string } } => ({
  headers: { authorization: `Bearer ${token}` },
});

/** Expects a REST error response: the status, a JSON body of exactly `error` and `error_description`; returns the description. */
export async function expectError(res: Response, status: number, error: string): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
  expect(body['error']).toBe(error);
  expect(typeof body['error_description']).toBe('string');
  return body['error_description'] as string;
}
