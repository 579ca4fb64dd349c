import * as z from 'zod';

/**
 * Every setting the service reads, in one place. Each entry names its environment variable, validates it,
 * and documents it; the README's configuration table is checked against this list by a test.
 */
export interface SettingSpec {
  readonly env: string;
  readonly schema: z.ZodType;
  readonly description: string;
  /** Shown in docs; `undefined` means "unset by default". */
  readonly defaultText?: string;
  /** Secrets are never logged and never printed back. */
  readonly secret?: boolean;
}

const port = z.coerce
  .number({ error: 'expected an integer between 1 and 65535' })
  .int('expected an integer between 1 and 65535')
  .min(1, 'expected an integer between 1 and 65535')
  .max(65535, 'expected an integer between 1 and 65535');

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'expected true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveInt = (what: string) =>
  z.coerce
    .number({ error: `expected ${what}` })
    .int(`expected ${what}`)
    .positive(`expected ${what}`);

/** A comma-separated list: items trimmed (and lowercased if asked), empty items dropped; unset reads as empty. */
const commaList = (opts: { lowercase?: boolean } = {}) =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((o) => (opts.lowercase === true ? o.trim().toLowerCase() : o.trim()))
        .filter((o) => o !== ''),
    );

const httpUrl = z
  .url({ protocol: /^https?$/, error: 'expected an absolute http(s) URL such as https://triage.example.com' })
  .refine((u) => !u.endsWith('/'), 'expected no trailing slash')
  .refine((u) => new URL(u).search === '' && new URL(u).hash === '', 'expected no query string or fragment');

/**
 * The service's own address is an origin: every route, the OAuth metadata and the discovery documents (RFC 8414 and
 * 9728 place them at the host's root, with the issuer's path after `.well-known/…`) are served at the root, so a
 * path here would put its links and its OAuth issuer where nothing answers (decision 0053).
 */
const serviceUrl = httpUrl.refine(
  (u) => new URL(u).pathname === '/',
  'expected no path: the service answers at the root of its host (give it a host name of its own, such as https://triage.example.com)',
);

const databaseUrl = z
  .string()
  .refine(
    (u) => /^postgres(ql)?:\/\//.test(u),
    'expected a postgres:// URL (leave unset to use the embedded SQLite database)',
  );

const encryptionKey = z
  .string()
  .refine(
    (k) => Buffer.from(k, 'base64').length === 32,
    'expected 32 random bytes in base64 (generate with: openssl rand -base64 32)',
  );

export const SETTINGS = {
  port: {
    env: 'PORT',
    schema: port.default(8787),
    defaultText: '8787',
    description: 'TCP port to listen on.',
  },
  host: {
    env: 'HOST',
    schema: z.string().min(1).default('127.0.0.1'),
    defaultText: '127.0.0.1',
    description: 'Address to bind. Keep 127.0.0.1 behind a reverse proxy; 0.0.0.0 exposes the service.',
  },
  baseUrl: {
    env: 'BASE_URL',
    schema: serviceUrl.optional(),
    defaultText: 'http://127.0.0.1:$PORT',
    description:
      'Public address of the service (scheme, host and port; no path), used in links, OAuth metadata and MCP challenges. Passkeys need a domain name here, not an IP address.',
  },
  dataDir: {
    env: 'DATA_DIR',
    schema: z.string().min(1).default('./data'),
    defaultText: './data',
    description: 'Directory for the SQLite database and the generated encryption key.',
  },
  databaseUrl: {
    env: 'DATABASE_URL',
    schema: databaseUrl.optional(),
    description: 'PostgreSQL connection URL. Unset: embedded SQLite in DATA_DIR.',
    secret: true,
  },
  encryptionKey: {
    env: 'ENCRYPTION_KEY',
    schema: encryptionKey.optional(),
    defaultText: 'generated into DATA_DIR/encryption.key',
    description:
      'Key (base64, 32 bytes) that encrypts provider credentials at rest. Every instance on one database needs the same key; a start with another stops.',
    secret: true,
  },
  metricsToken: {
    env: 'METRICS_TOKEN',
    schema: z
      .string()
      .min(24, 'use at least 24 characters (for example `openssl rand -hex 24`)')
      .regex(/^[\x21-\x7e]+$/, 'printable characters only, no spaces')
      .optional(),
    defaultText: 'unset: /metrics answers 404',
    description:
      'Bearer token for GET /metrics (Prometheus text). Unset, the endpoint is off; set, a scrape without it gets 401.',
    secret: true,
  },
  logLevel: {
    env: 'LOG_LEVEL',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    defaultText: 'info',
    description: 'fatal, error, warn, info, debug, trace or silent.',
  },
  shutdownTimeoutMs: {
    env: 'SHUTDOWN_TIMEOUT_MS',
    schema: positiveInt('a positive number of milliseconds').default(10_000),
    defaultText: '10000',
    description: 'How long a graceful shutdown waits for in-flight requests.',
  },
  keepAliveSeconds: {
    env: 'HTTP_KEEP_ALIVE_SECONDS',
    schema: z.coerce
      .number({ error: 'expected a number of seconds from 1 to 3600' })
      .int('expected a number of seconds from 1 to 3600')
      .min(1, 'expected a number of seconds from 1 to 3600')
      .max(3600, 'expected a number of seconds from 1 to 3600')
      .default(125),
    defaultText: '125',
    description:
      "How long an idle HTTP connection stays open for its client's next request. Keep it longer than the idle timeout of a proxy or load balancer in front that reuses connections (Caddy: 120 s; nginx's upstream keepalive and AWS load balancers: 60 s; Google Cloud's: 600 s), or it may send a request on a connection the service is closing and answer 502 (decision 0132).",
  },
  databaseWaitSeconds: {
    env: 'DATABASE_WAIT_SECONDS',
    schema: z.coerce
      .number({ error: 'expected a number of seconds from 0 to 3600' })
      .int('expected a number of seconds from 0 to 3600')
      .min(0, 'expected a number of seconds from 0 to 3600')
      .max(3600, 'expected a number of seconds from 0 to 3600')
      .default(60),
    defaultText: '60',
    description:
      'PostgreSQL only: how long `serve` and `migrate` wait at start for the database to accept connections (it may start after the service: compose, boot order), trying again with growing pauses. Wrong credentials or a missing database stop at once; 0 does not wait (decision 0057).',
  },
  databasePoolSize: {
    env: 'DATABASE_POOL_SIZE',
    schema: z.coerce
      .number({ error: 'expected a number of connections from 2 to 200' })
      .int('expected a number of connections from 2 to 200')
      .min(2, 'expected a number of connections from 2 to 200')
      .max(200, 'expected a number of connections from 2 to 200')
      .default(10),
    defaultText: '10',
    description:
      "PostgreSQL only: the connections of an instance's main pool. An instance opens up to this many, as many again (at most 8) that hold inboxes' locks, and 6 of its own (the job queue 5, the watchers 1): 24 at the default. Lower it where the database allows few connections; requests then wait for one in turn.",
  },
  databaseQueryTimeoutSeconds: {
    env: 'DATABASE_QUERY_TIMEOUT_SECONDS',
    schema: z.coerce
      .number({ error: 'expected a number of seconds from 1 to 3600' })
      .int('expected a number of seconds from 1 to 3600')
      .min(1, 'expected a number of seconds from 1 to 3600')
      .max(3600, 'expected a number of seconds from 1 to 3600')
      .default(30),
    defaultText: '30',
    description:
      'PostgreSQL only: how long a statement (an inbox lock wait among them), a connection or the wait for one may take. PostgreSQL cancels a statement at this limit; a database that says nothing at all is given up 2 s later and its connection dropped, where a node cut off from it without a word would wait for its TCP, about 15 minutes. The request fails (500). Migrations have no limit (decision 0063).',
  },
  trustProxy: {
    env: 'TRUST_PROXY',
    schema: bool.default(false),
    defaultText: 'false',
    description: 'Trust X-Forwarded-For for client addresses (only behind your own reverse proxy).',
  },
  trialDays: {
    env: 'TRIAL_DAYS',
    schema: positiveInt('a positive number of days').default(14),
    defaultText: '14',
    description: 'Length of the trial a new account starts with.',
  },
  openSignup: {
    env: 'OPEN_SIGNUP',
    schema: bool.default(false),
    defaultText: 'false',
    description:
      'Let anyone who can reach the service create an account. Otherwise: invitations from the CLI.',
  },
  activityDays: {
    env: 'ACTIVITY_DAYS',
    schema: z.coerce
      .number({ error: 'expected 0 (keep it for good) or a number of days from 30' })
      .int('expected 0 (keep it for good) or a number of days from 30')
      .refine((n) => n === 0 || n >= 30, 'expected 0 (keep it for good) or a number of days from 30')
      .default(365),
    defaultText: '365',
    description:
      'How long the activity log (one row per agent call: time, credential, tool, outcome) is kept; older rows are removed hourly. 0 keeps it for good (decision 0068).',
  },
  sessionDays: {
    env: 'SESSION_DAYS',
    schema: positiveInt('a positive number of days').default(30),
    defaultText: '30',
    description: 'How long a browser session lasts without use.',
  },
  rateLimitApi: {
    env: 'RATE_LIMIT_API_PER_MINUTE',
    schema: positiveInt('a positive number of requests').default(120),
    defaultText: '120',
    description: 'REST requests per minute per API key.',
  },
  rateLimitMcp: {
    env: 'RATE_LIMIT_MCP_PER_MINUTE',
    schema: positiveInt('a positive number of requests').default(600),
    defaultText: '600',
    description:
      'MCP requests per minute per credential (API key or access token). Each message of a JSON-RPC batch counts as one (batches: 2025-03-26 clients only, at most 20 messages, and never more than this number: decision 0153), and so does each download through a link the credential got from get_attachment (decision 0125).',
  },
  credentialCacheSeconds: {
    env: 'CREDENTIAL_CACHE_SECONDS',
    schema: z.coerce
      .number({ error: 'expected a number of seconds from 0 to 60' })
      .int('expected a number of seconds from 0 to 60')
      .min(0, 'expected a number of seconds from 0 to 60')
      .max(60, 'expected a number of seconds from 0 to 60')
      .optional(),
    defaultText: '5 on SQLite, 0 on PostgreSQL',
    description:
      'How long a verified API key or access token is trusted without a database lookup. Revocations and plan changes made through this process apply at once; made by another process (the CLI, another instance), within this time — so on PostgreSQL, where several instances may share the database, it is 0 unless you set it (decision 0024). 0 looks up every request.',
  },
  rateLimitAnonymous: {
    env: 'RATE_LIMIT_ANONYMOUS_PER_MINUTE',
    schema: positiveInt('a positive number of requests').default(60),
    defaultText: '60',
    description:
      'Requests per minute per client address to sign-in, setup, the OAuth endpoints and other unauthenticated endpoints; OAuth client registrations are also counted per hour, at the same number (decision 0122). An IPv6 client counts as its /64 network.',
  },
  rateLimitDrafts: {
    env: 'RATE_LIMIT_DRAFTS_PER_INBOX_PER_DAY',
    schema: positiveInt('a positive number of drafts').default(200),
    defaultText: '200',
    description:
      'New drafts an inbox takes per day, from every agent and surface together: each is a message written into the mailbox, so an agent caught in a loop cannot fill its Drafts folder and quota (decision 0126). Counted in memory on SQLite (a restart starts the count again), in the database on PostgreSQL.',
  },
  rateLimitLabels: {
    env: 'RATE_LIMIT_NEW_LABELS_PER_INBOX_PER_DAY',
    schema: positiveInt('a positive number of labels').default(50),
    defaultText: '50',
    description:
      'Labels an inbox gains per day, from every agent and surface together: a label the mailbox lacks is made when an agent first applies it, so an agent caught in a loop cannot fill the label list (Gmail takes 10,000; some IMAP servers a hundred-odd keywords a folder). Labels the inbox has are never counted (decision 0146). Counted like RATE_LIMIT_DRAFTS_PER_INBOX_PER_DAY.',
  },
  signinFailures: {
    env: 'SIGNIN_MAX_FAILURES',
    schema: positiveInt('a positive number of attempts').default(5),
    defaultText: '5',
    description:
      'Failed sign-ins allowed per account per 15 minutes from browsers that never signed in to it (four times as many per client address); a browser that signed in to the account before has the same allowance of its own, so failures from elsewhere cannot lock the owner out of it (decision 0025).',
  },
  mcpAllowedOrigins: {
    env: 'MCP_ALLOWED_ORIGINS',
    schema: commaList().refine(
      (list) => list.every((o) => /^https?:\/\/[^/\s]+$/.test(o)),
      'expected comma-separated origins such as https://app.example.com',
    ),
    defaultText: 'the origin of BASE_URL',
    description:
      'Browser origins allowed to call /mcp (besides BASE_URL). Requests without an Origin header are allowed.',
  },
  oauthRedirectUris: {
    env: 'OAUTH_REDIRECT_URIS',
    schema: commaList().refine(
      (list) => list.every((u) => URL.canParse(u)),
      'expected comma-separated absolute redirect URIs',
    ),
    defaultText: 'known MCP hosts (see README)',
    description:
      'Extra redirect URIs MCP clients may register, besides the built-in hosts and loopback /callback URIs.',
  },
  syncWindow: {
    env: 'SYNC_WINDOW',
    schema: positiveInt('a positive number of messages').default(1000),
    defaultText: '1000',
    description: 'Newest messages kept in the index per selected folder; load_older_messages extends it.',
  },
  syncIntervalSeconds: {
    env: 'SYNC_INTERVAL_SECONDS',
    schema: positiveInt('a positive number of seconds').default(300),
    defaultText: '300',
    description:
      'How often connected inboxes are synced in the background (new mail in the inbox folder also arrives by IMAP IDLE).',
  },
  googleClientId: {
    env: 'GOOGLE_CLIENT_ID',
    schema: z
      .string()
      .regex(/^[\x21-\x7e]+$/, 'printable characters only, no spaces')
      .optional(),
    defaultText: 'unset: Gmail inboxes cannot connect',
    description:
      'OAuth client id of your Google Cloud project (README, "Gmail for operators"). With GOOGLE_CLIENT_SECRET it turns on start_google_oauth.',
  },
  googleClientSecret: {
    env: 'GOOGLE_CLIENT_SECRET',
    schema: z
      .string()
      .regex(/^[\x21-\x7e]+$/, 'printable characters only, no spaces')
      .optional(),
    description: 'The secret of that OAuth client.',
    secret: true,
  },
  googleIssuer: {
    env: 'GOOGLE_OAUTH_ISSUER',
    schema: httpUrl.default('https://accounts.google.com'),
    defaultText: 'https://accounts.google.com',
    description:
      'Where Google sign-in is discovered (/.well-known/openid-configuration). Change only to point at a local emulator in tests.',
  },
  gmailApiUrl: {
    env: 'GMAIL_API_URL',
    schema: httpUrl.default('https://gmail.googleapis.com'),
    defaultText: 'https://gmail.googleapis.com',
    description: 'The Gmail API root. Change only to point at a local emulator in tests.',
  },
  gmailPollSeconds: {
    env: 'GMAIL_POLL_SECONDS',
    schema: positiveInt('a positive number of seconds')
      .max(3600, 'expected at most 3600 seconds')
      .default(30),
    defaultText: '30',
    description:
      'How often connected Gmail inboxes are asked whether anything changed (one history request each; new mail then syncs).',
  },
  microsoftClientId: {
    env: 'MICROSOFT_CLIENT_ID',
    schema: z
      .string()
      .regex(/^[\x21-\x7e]+$/, 'printable characters only, no spaces')
      .optional(),
    defaultText: 'unset: Microsoft inboxes cannot connect',
    description:
      'Application (client) id of your Microsoft Entra app registration (README, "Microsoft for operators"). With MICROSOFT_CLIENT_SECRET it turns on start_microsoft_oauth.',
  },
  microsoftClientSecret: {
    env: 'MICROSOFT_CLIENT_SECRET',
    schema: z
      .string()
      .regex(/^[\x21-\x7e]+$/, 'printable characters only, no spaces')
      .optional(),
    description: 'A client secret of that app registration.',
    secret: true,
  },
  microsoftTenant: {
    env: 'MICROSOFT_TENANT',
    schema: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,100}$/, 'a tenant id, a domain, or common / organizations / consumers')
      .default('common'),
    defaultText: 'common',
    description:
      'Which accounts may sign in: common (work and personal), organizations (work only), consumers (Outlook.com only), or your tenant id.',
  },
  microsoftAuthority: {
    env: 'MICROSOFT_AUTHORITY',
    schema: httpUrl.default('https://login.microsoftonline.com'),
    defaultText: 'https://login.microsoftonline.com',
    description:
      'The Microsoft identity platform. Change only for a national cloud, or a local emulator in tests.',
  },
  graphApiUrl: {
    env: 'GRAPH_API_URL',
    schema: httpUrl.default('https://graph.microsoft.com'),
    defaultText: 'https://graph.microsoft.com',
    description: 'The Microsoft Graph root. Change only for a national cloud, or a local stub in tests.',
  },
  graphPollSeconds: {
    env: 'GRAPH_POLL_SECONDS',
    schema: positiveInt('a positive number of seconds')
      .max(3600, 'expected at most 3600 seconds')
      .default(30),
    defaultText: '30',
    description:
      'How often connected Microsoft inboxes are asked for changes (one delta request each; new mail then syncs).',
  },
  imapInsecureHosts: {
    env: 'IMAP_INSECURE_HOSTS',
    schema: commaList({ lowercase: true }),
    description:
      'IMAP and SMTP hosts allowed without TLS and on private addresses (a LAN mail server). Leave empty on the internet.',
  },
  imapReuseSeconds: {
    env: 'IMAP_REUSE_SECONDS',
    schema: z.coerce
      .number({ error: 'expected a number of seconds from 0 to 300' })
      .int('expected a number of seconds from 0 to 300')
      .min(0, 'expected a number of seconds from 0 to 300')
      .max(300, 'expected a number of seconds from 0 to 300')
      .default(20),
    defaultText: '20',
    description:
      "How long a logged-in IMAP connection waits for the same inbox's next read before logging out (reading a message is then a FETCH, not a new login; the server counts these connections). 0 logs out after every use.",
  },
  unsubscribeAllowedHosts: {
    env: 'UNSUBSCRIBE_ALLOWED_HOSTS',
    schema: commaList({ lowercase: true }),
    description:
      'Host names one-click unsubscribe links may reach although they resolve to private addresses (an intranet list server). Leave empty on the internet.',
  },
  configFile: {
    env: 'CONFIG_FILE',
    schema: z.string().min(1).optional(),
    description: 'Optional JSON file with any of these settings by variable name; the environment wins.',
  },
} as const satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof SETTINGS;
export type RawSettings = { [K in SettingKey]: z.output<(typeof SETTINGS)[K]['schema']> };
