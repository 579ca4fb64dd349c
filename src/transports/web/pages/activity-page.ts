import { html } from 'hono/html';
import type { Hono } from 'hono';
import type { AuditLog } from '../../../core/audit/audit-log.ts';
import { page } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';

const when = (d: Date) => `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** Settings → Activity: what agents did, newest first — the audit log, never message content. */
export function registerActivityPage(app: Hono<WebEnv>, deps: WebDeps & { audit: AuditLog }): void {
  app.get('/settings/activity', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const [entries, keys] = await Promise.all([
      deps.audit.recent(account.id, 200),
      deps.apiKeys.list(account.id),
    ]);
    const keyNames = new Map<string, string>(keys.map((k) => [k.id, k.name]));
    const who = (kind: string, id: string, client: string | null) =>
      kind === 'api_key' ? `API key “${keyNames.get(id) ?? 'deleted key'}”` : `Agent ${client ?? id}`;
    return c.html(
      page({
        title: 'Activity',
        account,
        csrf: c.get('csrf'),
        body: html`<h1>Agent activity</h1>
          <p>
            Every tool call an agent made for you, newest first (last 200). Message content is never recorded.
          </p>
          ${
            entries.length === 0
              ? html`<p class="muted">No agent activity yet.</p>`
              : html`<table>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Tool</th>
                      <th scope="col">By</th>
                      <th scope="col">Result</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${entries.map(
                      (e) =>
                        html`<tr>
                          <td>${when(e.at)}</td>
                          <td>
                            <code>${e.tool}</code
                            >${e.inboxId === null ? '' : html`<br /><span class="muted">${e.inboxId}</span>`}
                          </td>
                          <td>${who(e.credentialKind, e.credentialId, e.clientId)}</td>
                          <td>
                            ${e.outcome === 'ok' ? 'done' : e.outcome}${e.undoId === null ? '' : html`<br /><span class="muted">undo ${e.undoId}</span>`}
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
          }`,
      }),
    );
  });
}
