import { OF_THE_OWNER, POWER_WORDS, type AgentPower } from '../../core/auth/agent-powers.ts';
import { jsonError } from '../http/json-error.ts';

/** Contract §5 REST / §7: the exact 401s of `/api`. */
export function restUnauthenticated(reason: 'missing' | 'invalid'): Response {
  if (reason === 'missing') {
    return jsonError(
      401,
      'missing_api_key',
      'Send an API key as "Authorization: Bearer itk_…". The account owner creates keys in Settings > Advanced.',
      { 'WWW-Authenticate': 'Bearer realm="api"' },
    );
  }
  return jsonError(
    401,
    'invalid_api_key',
    'This API key is wrong or has been revoked. The account owner can create a new key in Settings > Advanced.',
    { 'WWW-Authenticate': 'Bearer realm="api", error="invalid_token"' },
  );
}

/** 403 `not_allowed`: the person has not let this key do what the route does (decision 0141). */
export function notAllowed(needs: AgentPower): Response {
  return jsonError(
    403,
    'not_allowed',
    `The account owner has not allowed this API key to ${POWER_WORDS[needs].what(OF_THE_OWNER)}. They can allow it in Settings > Advanced.`,
  );
}
