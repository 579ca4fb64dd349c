import { html } from 'hono/html';
import type { Hono } from 'hono';
import type { OAuthProvider } from '../../../oauth/oauth-provider.ts';
import type { Grant } from '../../../oauth/token/grant.ts';
import { formFields } from '../form.ts';
import { allowedFieldsets, allowedFromForm, allowedInShort } from '../allowed-field.ts';
import { EVERYTHING } from '../../../core/auth/allowed.ts';
import { wholeAccount } from '../../../core/auth/inbox-reach.ts';
import { csrfField, notice, page, when } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import { passwordClient } from '../password-client.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';

/**
 * Settings → Connected agents: every OAuth client with its sign-ins, last use and what each may do (changed for all
 * of a client's sign-ins at once, decision 0141). Disconnect one agent
 * (its tokens stop working on the next request) or everything at once: every agent and every API key (contract
 * §5 REST item 4).
 */
export function registerConnectedAgentsPage(
  app: Hono<WebEnv>,
  deps: WebDeps & { oauth: OAuthProvider },
): void {
  app.get('/settings/agents', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const [grants, inboxes] = await Promise.all([
      deps.oauth.grants.listGrants(account.id),
      deps.inboxes.all(wholeAccount(account.id)),
    ]);
    const byClient = new Map<string, Grant[]>();
    for (const g of grants) byClient.set(g.clientId, [...(byClient.get(g.clientId) ?? []), g]);
    const clients = await Promise.all(
      [...byClient.keys()].map(async (id) => ({
        id,
        client: await deps.oauth.clients.resolve(id).catch(() => undefined),
      })),
    );
    const done = c.req.query('done');
    return c.html(
      page({
        nonce: c.get('nonce'),
        title: 'Connected agents',
        account,
        csrf: c.get('csrf'),
        body: html`<h1>Connected agents</h1>
          ${notice('ok', done === 'one' ? 'Disconnected. That agent must connect again to continue.' : done === 'all' ? 'Every agent and every API key is disconnected.' : done === 'powers' ? 'Saved. It holds from that agent’s next request on; given more, it may have to reconnect to see its new tools.' : undefined)}
          ${
            clients.length === 0
              ? html`<p class="muted">
                  No agent is connected through sign-in. (API keys are under Advanced.)
                </p>`
              : clients.map(({ id, client }, index) => {
                  const sessions = byClient.get(id) ?? [];
                  const name = client?.clientName ?? id;
                  return html`<section class="notice" data-client-id="${id}">
                    <h2 style="margin-top:0">${name}</h2>
                    <p class="muted">
                      ${client === undefined ? '' : `Sends you back to ${new URL(client.redirectUris[0] ?? 'about:blank').host || 'an app'}`}
                    </p>
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">Signed in</th>
                          <th scope="col">Last used</th>
                          <th scope="col">May do</th>
                        </tr>
                      </thead>
                      <tbody>
                        ${sessions.map(
                          (g) =>
                            html`<tr>
                              <td>${when(g.createdAt)}</td>
                              <td>${when(g.lastUsedAt)}</td>
                              <td>${allowedInShort(g, inboxes)}</td>
                            </tr>`,
                        )}
                      </tbody>
                    </table>
                    <details>
                      <summary>Change what it may do</summary>
                      <form method="post" action="/settings/agents/powers">
                        ${csrfField(c.get('csrf'))}<input type="hidden" name="client_id" value="${id}" />
                        ${allowedFieldsets(sessions[0] ?? EVERYTHING, inboxes, `agent-${String(index)}`, `What “${name}” may do`)}
                        <button type="submit">Save</button>
                      </form>
                    </details>
                    <form method="post" action="/settings/agents/disconnect">
                      ${csrfField(c.get('csrf'))}<input type="hidden" name="client_id" value="${id}" />
                      <button class="danger" type="submit" aria-label="Disconnect ${name}">Disconnect</button>
                    </form>
                  </section>`;
                })
          }
          <h2>Disconnect everything</h2>
          <p>
            Ends every agent's sign-in <strong>and</strong> revokes every API key at once. Use it if a key or
            a device may be in the wrong hands.
          </p>
          <form method="post" action="/settings/agents/disconnect-all">
            ${csrfField(c.get('csrf'))}
            <button class="danger" type="submit">Disconnect every agent and API key</button>
          </form>`,
      }),
    );
  });

  // Every live sign-in of the agent, from its next request on, on every instance (decisions 0141, 0142).
  app.post('/settings/agents/powers', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const { client_id } = await formFields(c, 'client_id');
    const allowed = await allowedFromForm(c, () => deps.inboxes.all(wholeAccount(account.id)));
    const n =
      client_id === ''
        ? 0
        : await deps.oauth.setAllowed(account.id, client_id, allowed, passwordClient(c, deps));
    return c.redirect(n > 0 ? '/settings/agents?done=powers' : '/settings/agents', 303);
  });

  app.post('/settings/agents/disconnect', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const { client_id } = await formFields(c, 'client_id');
    if (client_id !== '') await deps.oauth.disconnect(account.id, client_id, passwordClient(c, deps));
    return c.redirect('/settings/agents?done=one', 303);
  });

  app.post('/settings/agents/disconnect-all', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    await deps.oauth.disconnectAll(account.id, passwordClient(c, deps));
    await deps.apiKeys.revokeAll(account.id, passwordClient(c, deps));
    return c.redirect('/settings/agents?done=all', 303);
  });
}
