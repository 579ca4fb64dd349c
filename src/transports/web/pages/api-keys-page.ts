import { html } from 'hono/html';
import type { Hono } from 'hono';
import { PLAN_LIMITS } from '../../../core/accounts/plan.ts';
import { parseApiKeyId, type ApiKey } from '../../../core/api-keys/api-key.ts';
import { keepFlash, takeFlash } from '../flash.ts';
import { EVERYTHING } from '../../../core/auth/allowed.ts';
import { wholeAccount } from '../../../core/auth/inbox-reach.ts';
import { formFields } from '../form.ts';
import { allowedFieldsets, allowedFromForm, allowedInShort, type NamedInbox } from '../allowed-field.ts';
import { csrfField, notice, page, when } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import { passwordClient } from '../password-client.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';

const PATH = '/settings/advanced';
const flashAt = (deps: WebDeps) => ({
  name: 'it_new_key',
  path: PATH,
  flash: deps.flash,
  cookies: deps.cookies,
});

/**
 * Settings → Advanced → API keys. A new key travels to the page that shows it inside a sealed, HttpOnly cookie
 * scoped to this path and deleted by that very response: it is shown once and a reload cannot show it again.
 */
export function registerApiKeysPage(app: Hono<WebEnv>, deps: WebDeps): void {
  app.get(PATH, requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const opened = takeFlash(c, flashAt(deps), account.id);
    const fresh = opened === undefined ? undefined : (JSON.parse(opened) as { id: string; secret: string });
    const [keys, inboxes] = await Promise.all([
      deps.apiKeys.list(account.id),
      deps.inboxes.all(wholeAccount(account.id)),
    ]);
    const active = keys.filter((k) => k.revokedAt === null).length;
    const limit = PLAN_LIMITS[account.plan].activeApiKeys;
    const error = c.req.query('error');
    return c.html(
      page({
        nonce: c.get('nonce'),
        title: 'Advanced',
        account,
        csrf: c.get('csrf'),
        body: html`<h1>Advanced</h1>
          <h2 id="api-keys">API keys</h2>
          <p>
            An API key lets an agent act for you over MCP (<code>/mcp</code>) or REST (<code>/api</code>). Put
            it in the agent's configuration or a secret store — never paste it into a chat.
          </p>
          ${fresh === undefined ? '' : newKeyNotice(fresh.secret, c.get('nonce'))}
          ${notice('ok', c.req.query('done') === 'powers' ? 'Saved. It holds from the key’s next request on; an agent given more may have to reconnect to see its new tools.' : undefined)}
          ${notice('error', error === 'limit' ? `Your ${account.plan} plan allows ${String(limit)} active key${limit === 1 ? '' : 's'}. Revoke one first, or upgrade.` : error === 'name' ? 'Give the key a name of 1 to 80 characters of text.' : undefined)}
          ${keysTable(keys, inboxes, c.get('csrf'))}
          <p class="muted">
            ${String(active)} of ${String(limit)} active key${limit === 1 ? '' : 's'} on the ${account.plan}
            plan.${
              active > limit
                ? ` The keys made before the plan changed keep working; a new one can be made once ${String(active - limit + 1)} ${active - limit + 1 === 1 ? 'is' : 'are'} revoked.`
                : ''
            }
          </p>
          <form method="post" action="${PATH}/keys">
            ${csrfField(c.get('csrf'))}
            <label for="name">Name for a new key</label>
            <input
              id="name"
              name="name"
              type="text"
              maxlength="80"
              required
              placeholder="e.g. Claude on my laptop"
            />
            ${allowedFieldsets(EVERYTHING, inboxes, 'new-key')}
            <button type="submit">Create key</button>
          </form>`,
      }),
    );
  });

  app.post(`${PATH}/keys`, requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const { name } = await formFields(c, 'name');
    const allowed = await allowedFromForm(c, () => deps.inboxes.all(wholeAccount(account.id)));
    const created = await deps.apiKeys.create(account.id, name, passwordClient(c, deps), allowed);
    if (!created.ok)
      return c.redirect(`${PATH}?error=${created.error.code === 'limit_reached' ? 'limit' : 'name'}`, 303);
    keepFlash(
      c,
      flashAt(deps),
      account.id,
      JSON.stringify({ id: created.value.key.id, secret: created.value.secret }),
    );
    return c.redirect(PATH, 303);
  });

  // What a key's agent may do and where, changed: from its next request on, on every instance (decisions 0141, 0142).
  app.post(`${PATH}/keys/:id/powers`, requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const id = parseApiKeyId(c.req.param('id'));
    const allowed = await allowedFromForm(c, () => deps.inboxes.all(wholeAccount(account.id)));
    const changed =
      id !== undefined && (await deps.apiKeys.setAllowed(account.id, id, allowed, passwordClient(c, deps)));
    return c.redirect(changed ? `${PATH}?done=powers` : PATH, 303);
  });

  app.post(`${PATH}/keys/:id/revoke`, requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const id = parseApiKeyId(c.req.param('id'));
    if (id !== undefined) await deps.apiKeys.revoke(account.id, id, passwordClient(c, deps));
    return c.redirect(PATH, 303);
  });
}

function newKeyNotice(secret: string, nonce: string) {
  return html`<div class="notice ok" role="status">
    <p><strong>Your new key.</strong> Copy it now: it will not be shown again.</p>
    <code class="secret" id="new-key">${secret}</code>
    <button type="button" id="copy-key" class="secondary">Copy</button>
    <span id="copied" class="muted" aria-live="polite"></span>
    <script nonce="${nonce}">
      document.getElementById('copy-key').addEventListener('click', async () => {
        await navigator.clipboard.writeText(document.getElementById('new-key').textContent);
        document.getElementById('copied').textContent = 'Copied.';
      });
    </script>
  </div>`;
}

function keysTable(keys: ApiKey[], inboxes: readonly NamedInbox[], csrf: string) {
  if (keys.length === 0) return html`<p class="muted">No keys yet.</p>`;
  return html`<table>
    <thead>
      <tr>
        <th scope="col">Name</th>
        <th scope="col">Key</th>
        <th scope="col">Created</th>
        <th scope="col">Last used</th>
        <th scope="col">May do</th>
        <th scope="col"><span class="skip">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${keys.map(
        (k) =>
          html`<tr data-key-id="${k.id}">
            <td>${k.name}</td>
            <td><code>itk_…${k.last4}</code></td>
            <td>${when(k.createdAt)}</td>
            <td>${when(k.lastUsedAt)}</td>
            <td>
              ${allowedInShort(k, inboxes)}
              ${
                k.revokedAt === null
                  ? html`<details>
                      <summary>Change</summary>
                      <form method="post" action="${PATH}/keys/${k.id}/powers">
                        ${csrfField(csrf)} ${allowedFieldsets(k, inboxes, k.id, `What “${k.name}” may do`)}
                        <button type="submit">Save</button>
                      </form>
                    </details>`
                  : ''
              }
            </td>
            <td>
              ${
                k.revokedAt === null
                  ? html`<form method="post" action="${PATH}/keys/${k.id}/revoke">
                      ${csrfField(csrf)}<button class="danger" type="submit" aria-label="Revoke ${k.name}">
                        Revoke
                      </button>
                    </form>`
                  : html`<span class="muted">revoked</span>`
              }
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
