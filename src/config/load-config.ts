import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from './config-error.ts';
import { SETTINGS, type RawSettings, type SettingKey, type SettingSpec } from './config-schema.ts';
import type { Config } from './config.ts';
import { DEFAULT_REDIRECT_ALLOWLIST } from '../oauth/oauth-config.ts';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads settings from the environment (and the optional CONFIG_FILE), validates them and returns the typed
 * config plus the raw secret values. Throws ConfigError naming the variable and what was expected.
 * `process.env` is passed in by the entry point: this module never reads it itself, so tests stay hermetic.
 */
export function loadConfig(env: Env, cwd: string): { config: Config; raw: RawSettings } {
  const fileValues = readConfigFile(env['CONFIG_FILE'], cwd);
  const raw = {} as Record<SettingKey, unknown>;
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    const spec: SettingSpec = SETTINGS[key];
    const value = nonEmpty(env[spec.env]) ?? fileValues[spec.env];
    const parsed = spec.schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const shown = spec.secret === true ? '(hidden)' : JSON.stringify(value);
      throw new ConfigError(`${spec.env}: ${issue?.message ?? 'invalid value'}, got ${shown}`);
    }
    raw[key] = parsed.data;
  }
  const settings = raw as RawSettings;
  if ((settings.googleClientId === undefined) !== (settings.googleClientSecret === undefined))
    throw new ConfigError(
      'GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET: set both (the OAuth client of your Google Cloud project) or neither',
    );
  if ((settings.microsoftClientId === undefined) !== (settings.microsoftClientSecret === undefined))
    throw new ConfigError(
      'MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET: set both (your Entra app registration) or neither',
    );
  const dataDir = isAbsolute(settings.dataDir) ? settings.dataDir : resolve(cwd, settings.dataDir);
  const baseUrl = settings.baseUrl ?? `http://${displayHost(settings.host)}:${String(settings.port)}`;
  const config: Config = {
    port: settings.port,
    host: settings.host,
    baseUrl,
    dataDir,
    database:
      settings.databaseUrl === undefined
        ? { kind: 'sqlite', path: sqlitePath(dataDir) }
        : { kind: 'postgres' },
    logLevel: settings.logLevel,
    shutdownTimeoutMs: settings.shutdownTimeoutMs,
    keepAliveSeconds: settings.keepAliveSeconds,
    databaseWaitSeconds: settings.databaseWaitSeconds,
    databaseQueryTimeoutSeconds: settings.databaseQueryTimeoutSeconds,
    databasePoolSize: settings.databasePoolSize,
    trustProxy: settings.trustProxy,
    trialDays: settings.trialDays,
    openSignup: settings.openSignup,
    sessionDays: settings.sessionDays,
    activityDays: settings.activityDays,
    mcpAllowedOrigins: [...new Set([new URL(baseUrl).origin, ...settings.mcpAllowedOrigins])],
    oauthRedirectAllowlist: [...DEFAULT_REDIRECT_ALLOWLIST, ...settings.oauthRedirectUris],
    syncWindow: settings.syncWindow,
    syncIntervalSeconds: settings.syncIntervalSeconds,
    imapInsecureHosts: settings.imapInsecureHosts,
    imapReuseSeconds: settings.imapReuseSeconds,
    unsubscribeAllowedHosts: settings.unsubscribeAllowedHosts,
    // Several instances may share a PostgreSQL database: a revocation on one must hold on the next request anywhere.
    credentialCacheSeconds: settings.credentialCacheSeconds ?? (settings.databaseUrl === undefined ? 5 : 0),
    google: {
      clientId: settings.googleClientId ?? null,
      issuer: settings.googleIssuer,
      gmailApiUrl: settings.gmailApiUrl,
      pollSeconds: settings.gmailPollSeconds,
    },
    microsoft: {
      clientId: settings.microsoftClientId ?? null,
      tenant: settings.microsoftTenant,
      authority: settings.microsoftAuthority,
      graphApiUrl: settings.graphApiUrl,
      pollSeconds: settings.graphPollSeconds,
    },
    rateLimits: {
      apiPerMinute: settings.rateLimitApi,
      mcpPerMinute: settings.rateLimitMcp,
      anonymousPerMinute: settings.rateLimitAnonymous,
      signinFailures: settings.signinFailures,
      draftsPerInboxPerDay: settings.rateLimitDrafts,
      newLabelsPerInboxPerDay: settings.rateLimitLabels,
    },
  };
  return { config, raw: settings };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

/** A wildcard bind is reachable on loopback; links should point somewhere a browser can open. */
function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function readConfigFile(path: string | undefined, cwd: string): Record<string, string | undefined> {
  if (path === undefined || path === '') return {};
  let text: string;
  try {
    text = readFileSync(resolve(cwd, path), 'utf8');
  } catch {
    throw new ConfigError(`CONFIG_FILE: cannot read ${JSON.stringify(path)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`CONFIG_FILE: ${JSON.stringify(path)} is not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`CONFIG_FILE: expected a JSON object of VARIABLE: value pairs`);
  }
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else throw new ConfigError(`CONFIG_FILE: ${k} must be a string, number or boolean`);
  }
  return out;
}

/** Where the embedded database lives in a data directory (also the source `copy-from-sqlite` reads, decision 0140). */
export function sqlitePath(dataDir: string): string {
  return resolve(dataDir, 'inbox-triage.db');
}
