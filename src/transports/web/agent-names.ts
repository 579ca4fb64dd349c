import type { ApiKey } from '../../core/api-keys/api-key.ts';
import type { AccountId } from '../../core/accounts/account.ts';
import type { WebDeps } from './web-deps.ts';

/** A credential as the activity log and the approvals record who asked. */
export interface AgentRef {
  readonly kind: string;
  readonly id: string;
  readonly clientId: string | null;
}

export interface AgentNames {
  /**
   * Who, in the person's words: "you", an API key by the name the person gave it, an OAuth agent by the name its
   * client registered (as Connected agents shows it) — and "(revoked since)" / "(disconnected since)" for a credential
   * that no longer works, so what a distrusted agent did or asked for does not look like the rest.
   */
  readonly who: (r: AgentRef | null) => string;
  /** The account's keys (revoked ones too) and its connected OAuth agents, named, for a filter (asked for only). */
  readonly choices: readonly { readonly id: string; readonly label: string }[];
}

/**
 * The names of the agents among `refs`; with `choices`, of every key and connected agent of the account too (the
 * clients of those not among `refs` are looked up only then).
 */
export async function agentNames(
  deps: Pick<WebDeps, 'apiKeys' | 'oauth'>,
  accountId: AccountId,
  refs: readonly (AgentRef | null)[],
  o: { choices?: boolean } = {},
): Promise<AgentNames> {
  const [keys, grants] = await Promise.all([
    deps.apiKeys.list(accountId),
    deps.oauth.grants.listGrants(accountId),
  ]);
  const keysById = new Map<string, ApiKey>(keys.map((k) => [k.id, k]));
  const connected = new Set(grants.map((g) => g.id));
  const clientIds = new Set([
    ...(o.choices === true ? grants.map((g) => g.clientId) : []),
    ...refs.flatMap((r) => (r?.kind === 'access_token' && r.clientId !== null ? [r.clientId] : [])),
  ]);
  const clientNames = new Map(
    await Promise.all(
      [...clientIds].map(
        async (id) =>
          [id, (await deps.oauth.clients.resolve(id).catch(() => undefined))?.clientName ?? id] as const,
      ),
    ),
  );
  const keyName = (k: ApiKey) => `API key “${k.name}”${k.revokedAt === null ? '' : ' (revoked since)'}`;
  const clientName = (clientId: string | null) =>
    clientId === null ? 'an agent' : `agent “${clientNames.get(clientId) ?? clientId}”`;
  const who = (r: AgentRef | null): string => {
    if (r === null) return 'an agent';
    if (r.kind === 'session') return 'you';
    if (r.kind === 'api_key') {
      const key = keysById.get(r.id);
      return key === undefined ? 'an API key since deleted' : keyName(key);
    }
    const name = clientName(r.clientId);
    return connected.has(r.id) ? name : `${name} (disconnected since)`;
  };
  return {
    who,
    choices:
      o.choices === true
        ? [
            ...keys.map((k) => ({ id: k.id, label: keyName(k) })),
            ...grants.map((g) => ({ id: g.id, label: clientName(g.clientId) })),
          ]
        : [],
  };
}
