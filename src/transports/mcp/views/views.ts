import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The MIME type of an MCP Apps view (SEP-1865; `RESOURCE_MIME_TYPE` of @modelcontextprotocol/ext-apps). */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

/** Nothing external: no fetch, no scripts, styles, fonts or images from anywhere (the host builds its CSP from it). */
const CSP_META = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

/** Our own policy inside the file as well, for a host that adds none: inline code only, no network at all. */
const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
  "connect-src 'none'; form-action 'none'; base-uri 'none'";

export interface View {
  readonly name: 'triage' | 'draft' | 'unsubscribes' | 'screened';
  /** `ui://inbox-triage/<name>-<hash>.html`: the hash is of the bytes, so the address changes with the view. */
  readonly uri: string;
  readonly title: string;
  readonly description: string;
  readonly html: string;
  /** The resource's `_meta` (MCP Apps): CSP domains (none) and a border. */
  readonly meta: { readonly ui: { readonly csp: typeof CSP_META; readonly prefersBorder: true } };
}

const here = (file: string) => readFileSync(new URL(file, import.meta.url), 'utf8');

/**
 * Each view is one self-contained HTML file put together from plain files beside this one at startup — the shared
 * kit (the MCP Apps handshake, theme, helpers) and the view's own script — with no build step (decision 0023).
 * The same files give the same bytes and so the same address on every node.
 */
function assemble(name: View['name'], title: string, description: string): View {
  const html =
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">\n` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    `<title>${title}</title>\n<style>\n${here('./kit.css')}</style>\n</head>\n<body>\n` +
    '<main id="app" aria-busy="false"><p class="muted">Loading…</p></main>\n' +
    `<script>\n${here('./kit.js')}\n${here(`./${name}.js`)}</script>\n</body>\n</html>\n`;
  const hash = createHash('sha256').update(html).digest('hex').slice(0, 12);
  return {
    name,
    uri: `ui://inbox-triage/${name}-${hash}.html`,
    title,
    description,
    html,
    meta: { ui: { csp: CSP_META, prefersBorder: true } },
  };
}

export const VIEWS = {
  triage: assemble('triage', 'Inbox', 'The inbox list of show_inbox, with quick actions and undo.'),
  draft: assemble(
    'draft',
    'Draft',
    'The draft card of show_draft: edit, save, and send after the person presses Send.',
  ),
  unsubscribes: assemble(
    'unsubscribes',
    'Mailing-list senders',
    'The sender list of review_unsubscribes, with unsubscribe.',
  ),
  screened: assemble(
    'screened',
    'Screened mail',
    'Screened mail of show_screened: rescue, report, period, inbox.',
  ),
} as const satisfies Record<View['name'], View>;

export const ALL_VIEWS: readonly View[] = Object.values(VIEWS);
