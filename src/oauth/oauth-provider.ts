import type { AccountId } from '../core/accounts/account.ts';
import type { Allowed } from '../core/auth/allowed.ts';
import { eventOf, type Client, type SignInHistory } from '../core/sessions/sign-in-history.ts';
import type { AccountStore } from '../core/accounts/account-store.ts';
import type { Clock } from '../lib/clock.ts';
import { ClientManager } from './client/client-manager.ts';
import type { ClientMetadataFetcher, ClientStore } from './client/client.ts';
import type { OAuthConfig } from './oauth-config.ts';
import { AuthorizationManager } from './request/authorization-manager.ts';
import type { RequestStore } from './request/authorization-request.ts';
import type { GrantStore } from './token/grant.ts';
import { TokenManager } from './token/token-manager.ts';

/** The authorization server, composed from its parts (clients, requests, tokens) over their stores. */
export class OAuthProvider {
  readonly config: OAuthConfig;
  readonly clients: ClientManager;
  readonly authorization: AuthorizationManager;
  readonly tokens: TokenManager;
  readonly grants: GrantStore;
  /** The time the endpoints go by (a request's arrival, for the token endpoint). */
  readonly clock: Clock;
  private readonly history: SignInHistory;

  constructor(deps: {
    config: OAuthConfig;
    clock: Clock;
    accounts: AccountStore;
    clientStore: ClientStore;
    requestStore: RequestStore;
    grantStore: GrantStore;
    fetcher: ClientMetadataFetcher;
    /** Derives each rotation's pair (`TokenManager`): the same on every node and across restarts. */
    rotationKey: Uint8Array;
    /** Where an agent connected by the person's consent is recorded for them (decision 0091). */
    history: SignInHistory;
  }) {
    this.config = deps.config;
    this.grants = deps.grantStore;
    this.clock = deps.clock;
    this.history = deps.history;
    this.clients = new ClientManager({
      store: deps.clientStore,
      fetcher: deps.fetcher,
      clock: deps.clock,
      redirectAllowlist: deps.config.redirectAllowlist,
    });
    this.authorization = new AuthorizationManager({
      clients: this.clients,
      requests: deps.requestStore,
      grants: deps.grantStore,
      clock: deps.clock,
      config: deps.config,
      history: deps.history,
    });
    this.tokens = new TokenManager({
      grants: deps.grantStore,
      accounts: deps.accounts,
      clock: deps.clock,
      config: deps.config,
      rotationKey: deps.rotationKey,
    });
  }

  /** Ends every sign-in of one agent on the account (Settings → Connected agents); recorded for the person (0091). */
  async disconnect(accountId: AccountId, clientId: string, client: Client): Promise<number> {
    const n = await this.grants.revokeClientGrants(accountId, clientId, this.clock.now());
    if (n > 0) await this.history.record(eventOf(accountId, 'agent_disconnected', this.clock.now(), client));
    return n;
  }

  /**
   * Changes what one agent may do and where (Settings → Connected agents, decisions 0141, 0142): every live sign-in
   * of it, from its next request on; recorded for the person. How many sign-ins were changed.
   */
  async setAllowed(
    accountId: AccountId,
    clientId: string,
    allowed: Allowed,
    client: Client,
  ): Promise<number> {
    const n = await this.grants.setClientAllowed(accountId, clientId, allowed);
    if (n > 0)
      await this.history.record(eventOf(accountId, 'agent_powers_changed', this.clock.now(), client));
    return n;
  }

  /** Ends every agent's sign-ins on the account; recorded for the person (0091). */
  async disconnectAll(accountId: AccountId, client: Client): Promise<number> {
    const n = await this.grants.revokeAllGrants(accountId, this.clock.now());
    if (n > 0)
      await this.history.record(eventOf(accountId, 'every_agent_disconnected', this.clock.now(), client));
    return n;
  }
}
