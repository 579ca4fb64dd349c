import { loadConfig, type Env } from './load-config.ts';
import { resolveEncryptionKey } from './encryption-key.ts';
import type { Config, Secrets } from './config.ts';

export type { Config, Secrets, DatabaseConfig } from './config.ts';
export { ConfigError } from './config-error.ts';
export { SETTINGS } from './config-schema.ts';
export { deploymentWarnings } from './deployment-warnings.ts';

/** The one entry point the process uses: settings, then secrets (which may create the key file). */
export function readConfiguration(env: Env, cwd: string): { config: Config; secrets: Secrets } {
  const { config, raw } = loadConfig(env, cwd);
  const encryptionKey = resolveEncryptionKey(raw.encryptionKey, config.dataDir);
  const secrets: Secrets = {
    encryptionKey,
    ...(raw.databaseUrl !== undefined && { databaseUrl: raw.databaseUrl }),
    ...(raw.metricsToken !== undefined && { metricsToken: raw.metricsToken }),
    ...(raw.googleClientSecret !== undefined && { googleClientSecret: raw.googleClientSecret }),
    ...(raw.microsoftClientSecret !== undefined && { microsoftClientSecret: raw.microsoftClientSecret }),
  };
  return { config, secrets };
}

/** The process environment. The only place the codebase touches `process.env`. */
export function processEnv(): Env {
  return process.env;
}
