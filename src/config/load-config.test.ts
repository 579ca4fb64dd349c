import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.ts';
import { ConfigError, readConfiguration } from './index.ts';
import { loadConfig } from './load-config.ts';
import { DEFAULT_REDIRECT_ALLOWLIST } from '../oauth/oauth-config.ts';

describe('loadConfig', () => {
  it('has safe defaults: loopback bind, port 8787, SQLite in ./data, base URL derived', () => {
    const { config } = loadConfig({}, '/srv/app');
    expect(config).toEqual({
      port: 8787,
      host: '127.0.0.1',
      baseUrl: 'http://127.0.0.1:8787',
      dataDir: '/srv/app/data',
      database: { kind: 'sqlite', path: '/srv/app/data/inbox-triage.db' },
      logLevel: 'info',
      shutdownTimeoutMs: 10000,
      keepAliveSeconds: 125,
      databasePoolSize: 10,
      databaseWaitSeconds: 60,
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
      imapInsecureHosts: [],
      imapReuseSeconds: 20,
      unsubscribeAllowedHosts: [],
      credentialCacheSeconds: 5,
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
      rateLimits: {
        apiPerMinute: 120,
        mcpPerMinute: 600,
        anonymousPerMinute: 60,
        signinFailures: 5,
        draftsPerInboxPerDay: 200,
        newLabelsPerInboxPerDay: 50,
      },
    });
  });

  it('keeps the activity log a year, for good with 0, or as many days as given from 30', () => {
    expect(loadConfig({}, '/x').config.activityDays).toBe(365);
    expect(loadConfig({ ACTIVITY_DAYS: '0' }, '/x').config.activityDays).toBe(0);
    expect(loadConfig({ ACTIVITY_DAYS: '30' }, '/x').config.activityDays).toBe(30);
  });

  it('derives the base URL from a wildcard bind as loopback and honours an explicit one', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }, '/x').config.baseUrl).toBe('http://127.0.0.1:9000');
    expect(loadConfig({ BASE_URL: 'https://triage.example.com' }, '/x').config.baseUrl).toBe(
      'https://triage.example.com',
    );
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT: expected an integer between 1 and 65535, got "abc"'],
    [{ PORT: '70000' }, 'PORT: expected an integer between 1 and 65535, got "70000"'],
    [{ BASE_URL: 'ftp://x' }, 'BASE_URL: expected an absolute http(s) URL'],
    [{ BASE_URL: 'https://x.example/' }, 'BASE_URL: expected no trailing slash'],
    [{ BASE_URL: 'https://x.example/triage' }, 'BASE_URL: expected no path: the service answers at the root'],
    [{ DATABASE_URL: 'mysql://u:pw@h/db' }, 'DATABASE_URL: expected a postgres:// URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL:'],
    [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY: expected true or false'],
    [{ ACTIVITY_DAYS: '7' }, 'ACTIVITY_DAYS: expected 0 (keep it for good) or a number of days from 30'],
  ])('names the variable and what was expected: %j', (env, message) => {
    expect(() => loadConfig(env, '/x')).toThrow(ConfigError);
    expect(() => loadConfig(env, '/x')).toThrow(message);
  });

  it('never echoes a secret value in its error', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://u:hunter2@h/db' }, '/x')).toThrow(/got \(hidden\)/);
    expect(() => loadConfig({ ENCRYPTION_KEY: 'hunter2' }, '/x')).not.toThrow(/hunter2/);
  });

  it('reads an optional JSON config file; the environment wins', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'c.json'), JSON.stringify({ PORT: 9100, LOG_LEVEL: 'debug' }));
    const { config } = loadConfig({ CONFIG_FILE: 'c.json', LOG_LEVEL: 'warn' }, dir);
    expect(config.port).toBe(9100);
    expect(config.logLevel).toBe('warn');
    expect(() => loadConfig({ CONFIG_FILE: 'missing.json' }, dir)).toThrow('CONFIG_FILE: cannot read');
  });
});

describe('readConfiguration: the encryption key', () => {
  it('generates a 32-byte key into the data dir with mode 0600 and reuses it', () => {
    const dir = tempDir();
    const first = readConfiguration({ DATA_DIR: dir }, '/');
    const path = join(dir, 'encryption.key');
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(first.secrets.encryptionKey).toHaveLength(32);
    const second = readConfiguration({ DATA_DIR: dir }, '/');
    expect(second.secrets.encryptionKey.equals(first.secrets.encryptionKey)).toBe(true);
    expect(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64').equals(first.secrets.encryptionKey)).toBe(
      true,
    );
  });

  it('uses a configured key and writes no file', () => {
    const dir = tempDir();
    const key = Buffer.alloc(32, 7).toString('base64');
    const { secrets } = readConfiguration({ DATA_DIR: dir, ENCRYPTION_KEY: key }, '/');
    expect(secrets.encryptionKey.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(existsSync(join(dir, 'encryption.key'))).toBe(false);
  });

  it('refuses a damaged key file rather than silently replacing it', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'encryption.key'), 'c2hvcnQ=\n', { mode: 0o600 });
    expect(() => readConfiguration({ DATA_DIR: dir }, '/')).toThrow(/expected 32 bytes/);
  });
});
