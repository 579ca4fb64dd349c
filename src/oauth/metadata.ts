import type { OAuthConfig } from './oauth-config.ts';

/** RFC 9728 protected-resource metadata for `/mcp`. `authorization_servers[0]` is the issuer, byte for byte. */
export function protectedResourceMetadata(c: OAuthConfig) {
  return {
    resource: c.resource,
    authorization_servers: [c.issuer],
    scopes_supported: [...c.scopes],
    bearer_methods_supported: ['header'],
    resource_name: 'Inbox Triage',
  };
}

/** RFC 8414 authorization-server metadata (with the MCP-relevant extensions: CIMD, RFC 9207 `iss`). */
export function authorizationServerMetadata(c: OAuthConfig) {
  const authMethods = ['none', 'client_secret_post', 'client_secret_basic'];
  return {
    issuer: c.issuer,
    authorization_endpoint: `${c.issuer}/oauth/authorize`,
    token_endpoint: `${c.issuer}/oauth/token`,
    registration_endpoint: `${c.issuer}/oauth/register`,
    revocation_endpoint: `${c.issuer}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    scopes_supported: [...c.scopes],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}
