/** What the authorization server needs to know about where it runs. */
export interface OAuthConfig {
  /** `BASE_URL`, byte-identical in metadata, PRM `authorization_servers` and every `iss`. */
  readonly issuer: string;
  /** The one protected resource: `{issuer}/mcp`. */
  readonly resource: string;
  readonly scopes: readonly string[];
  /** Exact redirect URIs of known MCP hosts (loopback `/callback` URIs are always allowed). */
  readonly redirectAllowlist: readonly string[];
  readonly accessTokenTtlMs: number;
  readonly refreshTokenTtlMs: number;
  readonly codeTtlMs: number;
  readonly requestTtlMs: number;
}

export const SCOPE_MCP_TOOLS = 'mcp:tools';
export const ACCESS_TOKEN_PREFIX = 'ita_';
export const REFRESH_TOKEN_PREFIX = 'itr_';

/** Defaults for the known hosts' callbacks; not verified against each host's docs — extend with config. */
export const DEFAULT_REDIRECT_ALLOWLIST = [
  'https://claude.ai/api/mcp/auth_callback',
  'https://claude.com/api/mcp/auth_callback',
  'https://chatgpt.com/connector_platform_oauth_redirect',
  'https://chat.openai.com/connector_platform_oauth_redirect',
  'https://vscode.dev/redirect',
  'https://insiders.vscode.dev/redirect',
  'cursor://anysphere.cursor-mcp/oauth/callback',
] as const;
