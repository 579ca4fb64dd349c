import {
  eventOf,
  type Client,
  type SignInEventKind,
  type SignInHistory,
} from '../sessions/sign-in-history.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/random.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { newSecret, sha256Hex } from '../../lib/secret-token.ts';
import type { AccountId } from '../accounts/account.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import { PLAN_LIMITS } from '../accounts/plan.ts';
import { EVERYTHING, type Allowed } from '../auth/allowed.ts';
import type { BearerVerifier, Verified } from '../auth/principal.ts';
import { API_KEY_PREFIX, type ApiKey, type ApiKeyId } from './api-key.ts';
import type { ApiKeyStore } from './api-key-store.ts';

export type CreateKeyError =
  | { readonly code: 'limit_reached'; readonly limit: number; readonly plan: string }
  | { readonly code: 'invalid_name' }
  | { readonly code: 'account_not_found' };

export interface ApiKeyServiceDeps {
  readonly keys: ApiKeyStore;
  readonly accounts: AccountStore;
  readonly clock: Clock;
  /** Keys made and revoked are ways in for agents: recorded in the person's sign-in history (decision 0091). */
  readonly history: SignInHistory;
}

export class ApiKeyService implements BearerVerifier {
  private readonly deps: ApiKeyServiceDeps;
  constructor(deps: ApiKeyServiceDeps) {
    this.deps = deps;
  }

  /**
   * Creates a key; the full value is returned exactly once and only its hash is kept. `allowed`: what its agent may
   * do beyond reading (decision 0141) and which inboxes it may reach (0142), everything unless the person chose.
   */
  async create(
    accountId: AccountId,
    rawName: string,
    client: Client,
    allowed: Allowed = EVERYTHING,
  ): Promise<Result<{ key: ApiKey; secret: string }, CreateKeyError>> {
    const name = rawName.trim().replace(/\s+/g, ' ');
    // A name is shown in the console and the activity log: printable text, no control characters (NUL included).
    if (name.length === 0 || name.length > 80 || /[\u0000-\u001f\u007f-\u009f]/.test(name))
      return err({ code: 'invalid_name' });
    const account = await this.deps.accounts.get(accountId);
    if (account === undefined) return err({ code: 'account_not_found' });
    const limit = PLAN_LIMITS[account.plan].activeApiKeys;
    const secret = newSecret(API_KEY_PREFIX, 40);
    const created = await this.deps.keys.createWithinLimit(
      {
        id: newId('key') as ApiKeyId,
        accountId,
        name,
        last4: secret.slice(-4),
        hash: sha256Hex(secret),
        createdAt: this.deps.clock.now(),
        ...allowed,
      },
      limit,
    );
    if (!created.ok) return err({ code: 'limit_reached', limit, plan: account.plan });
    await this.note(accountId, 'api_key_created', client);
    return ok({ key: created.value, secret });
  }

  list(accountId: AccountId): Promise<ApiKey[]> {
    return this.deps.keys.list(accountId);
  }

  async revoke(accountId: AccountId, id: ApiKeyId, client: Client): Promise<boolean> {
    if (!(await this.deps.keys.revoke(accountId, id, this.deps.clock.now()))) return false;
    await this.note(accountId, 'api_key_revoked', client);
    return true;
  }

  /**
   * Changes what an active key's agent may do and where; it applies to the key's next request. False: no such active
   * key.
   */
  async setAllowed(accountId: AccountId, id: ApiKeyId, allowed: Allowed, client: Client): Promise<boolean> {
    if (!(await this.deps.keys.setAllowed(accountId, id, allowed))) return false;
    await this.note(accountId, 'agent_powers_changed', client);
    return true;
  }

  async revokeAll(accountId: AccountId, client: Client): Promise<number> {
    const n = await this.deps.keys.revokeAll(accountId, this.deps.clock.now());
    if (n > 0) await this.note(accountId, 'every_api_key_revoked', client);
    return n;
  }

  private note(accountId: AccountId, kind: SignInEventKind, client: Client): Promise<void> {
    return this.deps.history.record(eventOf(accountId, kind, this.deps.clock.now(), client));
  }

  async verify(token: string): Promise<Verified | undefined> {
    if (!token.startsWith(API_KEY_PREFIX) || token.length > 100) return undefined;
    const found = await this.deps.keys.findActiveByHash(sha256Hex(token));
    if (found === undefined) return undefined;
    const { key, account } = found;
    const now = this.deps.clock.now();
    // Last-used is for the person's overview; minute precision keeps writes off the hot path.
    if (key.lastUsedAt === null || now.getTime() - key.lastUsedAt.getTime() > 60_000)
      await this.deps.keys.touch(key.id, now);
    return {
      principal: {
        accountId: key.accountId,
        credential: { kind: 'api_key', id: key.id },
        scopes: ['mcp:tools'],
        powers: key.powers,
        inboxes: key.inboxes,
        expiresAt: null,
      },
      account,
    };
  }
}
