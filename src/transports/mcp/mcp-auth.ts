import { jsonError } from '../http/json-error.ts';

/**
 * Contract §7: 401 `invalid_token` with the challenge MCP clients use to start sign-in (RFC 9728 discovery of
 * the authorization server, and the scope to ask for).
 */
export function mcpChallenge(baseUrl: string): string {
  return `Bearer realm="mcp", resource_metadata="${baseUrl}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`;
}

export function mcpUnauthenticated(baseUrl: string) {
  return (reason: 'missing' | 'invalid'): Response =>
    jsonError(
      401,
      'invalid_token',
      reason === 'missing'
        ? 'Send "Authorization: Bearer <token>": an OAuth access token (sign in through your MCP client) or an API key from Settings > Advanced.'
        : 'This token is invalid, expired or revoked. Sign in again through your MCP client, or use a current API key.',
      { 'WWW-Authenticate': mcpChallenge(baseUrl) },
    );
}
