import type { Context, Hono } from 'hono';
import { AGENT_POWERS, chosenPowers, EVERY_POWER, powerList } from '../../core/auth/agent-powers.ts';
import { parseApiKeyId, type ApiKey } from '../../core/api-keys/api-key.ts';
import type { ApiKeyService } from '../../core/api-keys/api-key-service.ts';
import { chosenReach, EVERY_INBOX, wholeAccount, type InboxReach } from '../../core/auth/inbox-reach.ts';
import type { AccountId } from '../../core/accounts/account.ts';
import type { InboxService } from '../../core/inboxes/inbox-service.ts';
import type { SessionService } from '../../core/sessions/session-service.ts';
import { jsonError } from '../http/json-error.ts';
import { KEY_CHANGE_REQUEST, KEY_CREATE_REQUEST } from './rest-schemas.ts';
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
  inboxes: k.inboxes === null ? null : [...k.inboxes].sort(),
});

/**
 * `/api/keys`: create, list, change what one may do and where (decisions 0141, 0142) and revoke keys as JSON — for the signed-in owner only (contract §5 REST item 2).
 * A request carrying any bearer credential is refused with 403 `owner_session_required`, valid key or not:
 * a leaked key must never be able to mint or revoke keys. Session requests need the CSRF header.
 */
export function registerKeyRoutes(
  app: Hono<WebEnv>,
  deps: {
    apiKeys: ApiKeyService;
    inboxes: InboxService;
    sessions: SessionService;
    cookies: CookiePolicy;
    baseUrl: string;
    trustProxy: boolean;
  },
): void {
  // The inboxes a request names; undefined when one is not the account's (a script should learn its mistake).
  const reachOf = async (
    accountId: AccountId,
    ids: readonly string[] | null,
  ): Promise<InboxReach | undefined> => {
    if (ids === null) return EVERY_INBOX;
    const reach = chosenReach(ids, await deps.inboxes.all(wholeAccount(accountId)));
    return reach.size === new Set(ids).size ? reach : undefined;
  };
  const keyNotFound = () => jsonError(404, 'key_not_found', 'No active key with this id on this account.');
  const notInboxes = () =>
    jsonError(
      400,
      'invalid_request',
      '"inboxes" names an inbox this account does not have; GET /api/inboxes lists them.',
    );
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
        `Send JSON {"name": "…"}, and "powers" if the key may do less than everything: a list of ${AGENT_POWERS.join(', ')}; "inboxes" if it may reach only some: a list of inbox ids.`,
      );
    const powers = body.data.powers === undefined ? EVERY_POWER : chosenPowers(body.data.powers);
    const inboxes = await reachOf(ownerId(c), body.data.inboxes ?? null);
    if (inboxes === undefined) return notInboxes();
    const created = await deps.apiKeys.create(ownerId(c), body.data.name, passwordClient(c, deps), {
      powers,
      inboxes,
    });
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

  // What a key's agent may do and where, changed (decisions 0141, 0142): from its next request on, on every instance.
  app.patch('/api/keys/:id', async (c) => {
    const body = KEY_CHANGE_REQUEST.safeParse(await c.req.json().catch(() => undefined));
    if (!body.success)
      return jsonError(
        400,
        'invalid_request',
        `Send JSON {"powers": […]} (a list of ${AGENT_POWERS.join(', ')}, [] for reading only), {"inboxes": […]} (inbox ids, null for every inbox), or both.`,
      );
    const accountId = ownerId(c);
    const id = parseApiKeyId(c.req.param('id'));
    const before = (await deps.apiKeys.list(accountId)).find((k) => k.id === id && k.revokedAt === null);
    if (id === undefined || before === undefined) return keyNotFound();
    const { powers, inboxes } = body.data;
    const reach = inboxes === undefined ? before.inboxes : await reachOf(accountId, inboxes);
    if (reach === undefined) return notInboxes();
    const allowed = { powers: powers === undefined ? before.powers : chosenPowers(powers), inboxes: reach };
    // Revoked meanwhile: changed nothing.
    if (!(await deps.apiKeys.setAllowed(accountId, id, allowed, passwordClient(c, deps))))
      return keyNotFound();
    return c.json(view({ ...before, ...allowed }));
  });

  app.delete('/api/keys/:id', async (c) => {
    const id = parseApiKeyId(c.req.param('id'));
    if (id === undefined || !(await deps.apiKeys.revoke(ownerId(c), id, passwordClient(c, deps))))
      return keyNotFound();
    return c.body(null, 204);
  });
}
