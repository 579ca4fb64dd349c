import type { RawSettings } from './config-schema.ts';

export type DatabaseConfig =
  { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres' };

/** Everything the service needs to know that is safe to log. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly database: DatabaseConfig;
  readonly logLevel: RawSettings['logLevel'];
  readonly shutdownTimeoutMs: number;
  /** How long an idle HTTP connection is kept for the next request (HTTP_KEEP_ALIVE_SECONDS). */
  readonly keepAliveSeconds: number;
  /** PostgreSQL: how long a start waits for the database to accept connections (wait-for-database.ts). */
  readonly databaseWaitSeconds: number;
  /** PostgreSQL: how long a statement may wait for an answer (pg-deadline.ts). */
  readonly databaseQueryTimeoutSeconds: number;
  /** PostgreSQL: the main pool's connections (DATABASE_POOL_SIZE); the lock pool has as many, at most 8. */
  readonly databasePoolSize: number;
  readonly trustProxy: boolean;
  readonly trialDays: number;
  readonly openSignup: boolean;
  readonly sessionDays: number;
  /** Days the activity log is kept; 0 for good. */
  readonly activityDays: number;
  /** Origins allowed on /mcp, BASE_URL's own included. */
  readonly mcpAllowedOrigins: readonly string[];
  /** Redirect URIs of known MCP hosts, built-in defaults plus OAUTH_REDIRECT_URIS. */
  readonly oauthRedirectAllowlist: readonly string[];
  readonly syncWindow: number;
  readonly syncIntervalSeconds: number;
  readonly imapInsecureHosts: readonly string[];
  /** How long a logged-in IMAP connection is kept for the inbox's next session; 0: not at all. */
  readonly imapReuseSeconds: number;
  /** One-click unsubscribe hosts allowed on private addresses (the SSRF guard's operator allowlist). */
  readonly unsubscribeAllowedHosts: readonly string[];
  /** Gmail: the OAuth client id (null: Google sign-in is off), where sign-in and the API live, how often to poll. */
  readonly google: {
    readonly clientId: string | null;
    readonly issuer: string;
    readonly gmailApiUrl: string;
    readonly pollSeconds: number;
  };
  /** Microsoft: the app's client id (null: Microsoft sign-in is off), tenant, where sign-in and Graph live, polling. */
  readonly microsoft: {
    readonly clientId: string | null;
    readonly tenant: string;
    readonly authority: string;
    readonly graphApiUrl: string;
    readonly pollSeconds: number;
  };
  /** How long a verified credential is believed without a lookup (core/auth/verified-cache.ts); 0 = never. */
  readonly credentialCacheSeconds: number;
  readonly rateLimits: {
    readonly apiPerMinute: number;
    readonly mcpPerMinute: number;
    readonly anonymousPerMinute: number;
    readonly signinFailures: number;
    /** New drafts per inbox per day (decision 0126). */
    readonly draftsPerInboxPerDay: number;
    /** Labels an inbox gains per day (decision 0146). */
    readonly newLabelsPerInboxPerDay: number;
  };
}

/** What must never reach a log line. */
export interface Secrets {
  /** 32 bytes for AES-256-GCM. */
  readonly encryptionKey: Buffer;
  readonly databaseUrl?: string;
  /** The bearer token `/metrics` asks for; without one the endpoint is off. */
  readonly metricsToken?: string;
  /** The Google OAuth client's secret (with `google.clientId`). */
  readonly googleClientSecret?: string;
  /** The Microsoft app registration's client secret (with `microsoft.clientId`). */
  readonly microsoftClientSecret?: string;
}
