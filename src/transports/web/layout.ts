import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { Account } from '../../core/accounts/account.ts';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#fff;--card:#f6f8fa;--line:#d0d7de;--accent:#0b5fff;--danger:#b42318;--ok:#137333}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--card:#161b22;--line:#30363d;--accent:#4c8dff;--danger:#f97066;--ok:#3fb950}}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}header{border-bottom:1px solid var(--line);padding:.75rem 1rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header .brand{font-weight:700;margin-right:auto;text-decoration:none;color:var(--fg)}nav a{margin-right:.75rem}
main{max-width:44rem;margin:0 auto;padding:1.5rem 1rem 4rem}h1{font-size:1.6rem;margin:.2rem 0 1rem}h2{font-size:1.2rem;margin-top:2rem}
label{display:block;font-weight:600;margin:.9rem 0 .3rem}input:not([type]),input[type=text],input[type=email],input[type=password],select{width:100%;padding:.6rem;border:1px solid var(--line);border-radius:6px;font:inherit;background:var(--bg);color:var(--fg)}
button,.button{display:inline-block;margin-top:1rem;padding:.6rem 1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;font:inherit;font-weight:600;cursor:pointer;text-decoration:none}
button.secondary{background:transparent;color:var(--accent)}button.danger{background:var(--danger);border-color:var(--danger)}
button:focus-visible,a:focus-visible,input:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.notice{padding:.75rem 1rem;border-radius:6px;border:1px solid var(--line);background:var(--card);margin:1rem 0}
.notice.error{border-color:var(--danger)}.field-error{display:block;color:var(--danger);margin:.25rem 0 .5rem}.notice.ok{border-color:var(--ok)}.muted{color:var(--muted)}
.secret{font-family:ui-monospace,monospace;word-break:break-all;padding:.6rem;border:1px dashed var(--line);border-radius:6px;background:var(--card);display:block}
table{width:100%;border-collapse:collapse;margin:.5rem 0}th,td{text-align:left;padding:.5rem .4rem;border-bottom:1px solid var(--line);vertical-align:top}
td form{margin:0}td button{margin:0;padding:.3rem .6rem}
fieldset.powers{border:1px solid var(--line);border-radius:6px;margin:1rem 0 0;padding:.5rem 1rem}fieldset.powers legend{font-weight:600;padding:0 .3rem}fieldset.powers label{font-weight:400;margin:.5rem 0}fieldset.powers label.indent{margin-left:1.6rem}.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem}
@media (max-width:36rem){th:nth-child(3),td:nth-child(3){display:none}}`;

/**
 * A moment as the pages show it: in UTC, in a `<time>` that the page's script (`page({ nonce })`) rewrites in the
 * person's own time zone and language, keeping the UTC text as its title. Without the script, UTC is what is read.
 */
export const when = (d: Date | null): Html | string =>
  d === null
    ? 'never'
    : html`<time datetime="${d.toISOString()}">${d.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>`;

/** Shows every `<time datetime>` in the browser's time zone and language; the UTC text stays as the title. */
const LOCAL_TIMES = `for (const t of document.querySelectorAll('time[datetime]')) {
  const d = new Date(t.dateTime);
  if (Number.isNaN(d.getTime())) continue;
  t.title = t.textContent;
  t.textContent = d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}`;

/**
 * Choosing inboxes (decision 0142), made plain where scripts run: ticking an inbox chooses "only the inboxes ticked",
 * and choosing every inbox clears the ticks. Without the script the radio button decides, as the labels say.
 */
const REACH_CHOICE = `for (const f of document.querySelectorAll('fieldset[data-reach]')) {
  const only = f.querySelector('input[name="inbox_reach"][value="only"]');
  const every = f.querySelector('input[name="inbox_reach"][value="every"]');
  const boxes = [...f.querySelectorAll('input[name="inbox"]')];
  for (const b of boxes) b.addEventListener('change', () => { if (b.checked && only) only.checked = true; });
  every?.addEventListener('change', () => { for (const b of boxes) b.checked = false; });
}`;

export function page(opts: {
  title: string;
  account?: Account | undefined;
  csrf?: string;
  body: Html;
  /** The response's CSP nonce: with it, the page shows times in the person's own zone (`when`). */
  nonce?: string;
}): Html {
  const nav =
    opts.account === undefined
      ? ''
      : html`<nav aria-label="Main">
            <a href="/inboxes">Inboxes</a><a href="/waiting">Waiting for you</a
            ><a href="/screened">Screened</a><a href="/settings">Settings</a
            ><a href="/settings/activity">Activity</a><a href="/settings/agents">Agents</a
            ><a href="/settings/advanced">Advanced</a>
          </nav>
          <form method="post" action="/signout" style="margin:0">
            <input type="hidden" name="_csrf" value="${opts.csrf ?? ''}" />
            <button class="secondary" style="margin:0" type="submit">Sign out</button>
          </form>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>${opts.title} · Inbox Triage</title>
        <style>
          ${raw(STYLE)}
        </style>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header><a class="brand" href="/">Inbox Triage</a>${nav}</header>
        <main id="main">${opts.body}</main>
        ${
          opts.nonce === undefined
            ? ''
            : html`<script nonce="${opts.nonce}">
                ${raw(LOCAL_TIMES)};
                ${raw(REACH_CHOICE)};
              </script>`
        }
      </body>
    </html>`;
}

export function notice(kind: 'error' | 'ok' | 'info', text: string | undefined): Html | string {
  if (text === undefined || text === '') return '';
  return html`<div
    class="notice ${kind === 'info' ? '' : kind}"
    role="${kind === 'error' ? 'alert' : 'status'}"
  >
    ${text}
  </div>`;
}

export const csrfField = (token: string): Html => html`<input type="hidden" name="_csrf" value="${token}" />`;
