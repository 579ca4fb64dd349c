/**
 * The paths real MCP hosts listen on for their loopback OAuth callback, with the source of each (contract §5 MCP
 * item 3 allows "the callbacks of known MCP host applications" besides `/callback`). Loopback only: a callback on
 * 127.0.0.1, localhost or [::1] reaches nothing but the person's own machine (RFC 8252 §7.3), so the port is free
 * and the path is all that is checked.
 */
export const KNOWN_LOOPBACK_PATHS: readonly { readonly path: string; readonly source: string }[] = [
  { path: '/callback', source: 'contract §5 MCP 3; Claude Code (http://localhost:<port>/callback)' },
  {
    path: '/oauth/callback',
    source:
      'mcp-remote 0.15.1 (http://localhost:<port>/oauth/callback, Claude Desktop, Cursor and Windsurf via the proxy); MCP Inspector 2.12.0 (http://localhost:6274/oauth/callback web, http://127.0.0.1:6276/oauth/callback CLI)',
  },
  { path: '/', source: 'VS Code desktop (http://127.0.0.1:33418/ and http://127.0.0.1/ with any port)' },
];

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);
const KNOWN_PATHS: ReadonlySet<string> = new Set(KNOWN_LOOPBACK_PATHS.map((k) => k.path));

/**
 * Which redirect URIs a client may register and use (contract §5 MCP item 3; OAuth 2.1 §4.1.1; RFC 8252 §7.3).
 * Allowed: an exact entry of the known-host allowlist (hosted clients' https callbacks), or an http loopback
 * callback on a known host's path (`KNOWN_LOOPBACK_PATHS`), any port. Everything else is refused without
 * redirecting.
 */
export function isAllowedRedirectUri(uri: string, allowlist: readonly string[]): boolean {
  if (allowlist.includes(uri)) return true;
  return loopbackCallback(uri) !== undefined;
}

/** The host and path of a loopback callback URI, or undefined when it is not one. */
function loopbackCallback(uri: string): { host: string; path: string } | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' || !LOOPBACK_HOSTS.has(u.hostname)) return undefined;
  if (
    !KNOWN_PATHS.has(u.pathname) ||
    u.search !== '' ||
    u.hash !== '' ||
    u.username !== '' ||
    u.password !== ''
  )
    return undefined;
  return { host: u.hostname, path: u.pathname };
}

/**
 * Whether a redirect URI presented at /authorize matches one the client registered: exactly, or — for loopback
 * callbacks only — with a different port (RFC 8252 §7.3).
 */
export function redirectUriMatches(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  const req = loopbackCallback(requested);
  if (req === undefined) return false;
  return registered.some((r) => {
    const reg = loopbackCallback(r);
    return reg !== undefined && reg.host === req.host && reg.path === req.path;
  });
}

export function isLoopbackOnly(uris: readonly string[]): boolean {
  return uris.length > 0 && uris.every((u) => loopbackCallback(u) !== undefined);
}
