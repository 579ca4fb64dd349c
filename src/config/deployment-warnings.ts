import type { Config } from './config.ts';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return LOOPBACK_NAMES.has(h) || h.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/**
 * Settings that start but will not work as an operator expects, said once at start in words (decision 0054). Not
 * refusals: a service reached through an SSH tunnel, or on a home network without TLS, is a choice we leave open.
 */
export function deploymentWarnings(config: Pick<Config, 'host' | 'baseUrl'>): string[] {
  const warnings: string[] = [];
  const base = new URL(config.baseUrl);
  if (!isLoopback(config.host) && isLoopback(base.hostname))
    warnings.push(
      `HOST is ${config.host}, so other machines can reach the service, but BASE_URL is ${config.baseUrl}: the links ` +
        'it prints and sends, the setup link and OAuth sign-in only work on this machine. Set BASE_URL to the address ' +
        'people and agents use.',
    );
  if (base.protocol === 'http:' && !isLoopback(base.hostname))
    warnings.push(
      `BASE_URL is ${config.baseUrl}, plain http to another machine: passwords, API keys and OAuth tokens cross the ` +
        'network unencrypted, and hosted MCP clients refuse such a sign-in. Put a TLS proxy in front and use https://.',
    );
  return warnings;
}
