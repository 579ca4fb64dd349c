import type { Context, Hono } from 'hono';
import { AGENT_POWERS, chosenPowers, EVERY_POWER, powerList } from '../../core/auth/agent-powers.ts';
import { parseApiKeyId, type ApiKey } from '../../core/api-keys/api-key.ts';
import type { ApiKeyService } from '../../core/api-keys/api-key-service.ts';
import type { SessionService } from '../../core/sessions/session-service.ts';
import { jsonError } from '../http/json-error.ts';
import { KEY_CREATE_REQUEST, KEY_POWERS_REQUEST } from './rest-schemas.ts';
import { csrfProtection } from '../web/csrf.ts';
import type { CookiePolicy } from '../web/cookies.ts';
import { loadSession, signedInAccount } from '../web/session.ts';
import { passwordClient } from '../web/password-client.ts';
import type { WebEnv } from '../web/web-env.ts';

/** Set by the guard above for every handler here. */
const ownerId = (c: Context<WebEnv>) => signedInAccount(c).id;

const view = (k: ApiKey) => ({
  id: k.id,
  name: k.name,
  last4: k.last4,
  createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  revokedAt: k.revokedAt?.toISOString() ?? null,
  powers: powerList(k.powers),
});

/**
 * `/api/keys`: create, list, change what one may do (decision 0141) and revoke keys as JSON — for the signed-in owner only (contract §5 REST item 2).
 * A request carrying any bearer credential is refused with 403 `owner_session_required`, valid key or not:
 * a leaked key must never be able to mint or revoke keys. Session requests need the CSRF header.
 */
export function registerKeyRoutes(
  app: Hono<WebEnv>,
  deps: {
    apiKeys: ApiKeyService;
    sessions: SessionService;
    cookies: CookiePolicy;
    baseUrl: string;
    trustProxy: boolean;
  },
): void {
  const path = '/api/keys/*';
  app.use(path, async (c, next) => {
    if (c.req.header('authorization') !== undefined) {
      return jsonError(
        403,
        'owner_session_required',
        'API keys are created and revoked only by the signed-in account owner, in Settings > Advanced.',
      );
    }
    await next();
    return undefined;
  });
  app.use(
    path,
    csrfProtection({ ...deps.cookies, origin: new URL(deps.baseUrl).origin }),
    loadSession(deps.sessions, deps.cookies),
    async (c, next) => {
      if (c.get('account') === undefined)
        return jsonError(401, 'owner_session_required', 'Sign in as the account owner first.');
      await next();
      return undefined;
    },
  );

  app.get('/api/keys', async (c) => c.json({ keys: (await deps.apiKeys.list(ownerId(c))).map(view) }));

  app.post('/api/keys', async (c) => {
    const body = KEY_CREATE_REQUEST.safeParse(await c.req.json().catch(() => undefined));
    if (!body.success)
      return jsonError(
        400,
        'invalid_request',
        `Send JSON {"name": "…"}, and "powers" if the key may do less than everything: a list of ${AGENT_POWERS.join(', ')}.`,
      );
    const powers = body.data.powers === undefined ? EVERY_POWER : chosenPowers(body.data.powers);
    const created = await deps.apiKeys.create(ownerId(c), body.data.name, passwordClient(c, deps), powers);
    if (!created.ok) {
      const e = created.error;
      if (e.code === 'limit_reached') {
        return jsonError(
          409,
          'key_limit_reached',
          `The ${e.plan} plan allows ${String(e.limit)} active API key(s). Revoke one in Settings > Advanced, or upgrade.`,
        );
      }
      return jsonError(
        400,
        'invalid_request',
        'The key name must be 1 to 80 characters of text, with no control characters.',
      );
    }
    c.header('Cache-Control', 'no-store');
    return c.json({ ...view(created.value.key), key: created.value.secret }, 201);
  });

  // What a key's agent may do, changed (decision 0141): from its next request on, on every instance.
  app.patch('/api/keys/:id', async (c) => {
    const body = KEY_POWERS_REQUEST.safeParse(await c.req.json().catch(() => undefined));
    if (!body.success)
      return jsonError(
        400,
        'invalid_request',
        `Send JSON {"powers": […]}: a list of ${AGENT_POWERS.join(', ')} ([] for reading only).`,
      );
    const id = parseApiKeyId(c.req.param('id'));
    const changed =
      id !== undefined &&
      (await deps.apiKeys.setPowers(ownerId(c), id, chosenPowers(body.data.powers), passwordClient(c, deps)));
    const key = changed ? (await deps.apiKeys.list(ownerId(c))).find((k) => k.id === id) : undefined;
    if (key === undefined)
      return jsonError(404, 'key_not_found', 'No active key with this id on this account.');
    return c.json(view(key));
  });

  app.delete('/api/keys/:id', async (c) => {
    const id = parseApiKeyId(c.req.param('id'));
    if (id === undefined || !(await deps.apiKeys.revoke(ownerId(c), id, passwordClient(c, deps)))) {
      return jsonError(404, 'key_not_found', 'No active key with this id on this account.');
    }
    return c.body(null, 204);
  });
}
