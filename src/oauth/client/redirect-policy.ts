/**
 * Which redirect URIs a client may register and use (contract §5 MCP item 3; OAuth 2.1 §4.1.1; RFC 8252 §7.3).
 * Allowed: an exact entry of the known-host allowlist, or a loopback `http://127.0.0.1:<port>/callback` /
 * `http://localhost:<port>/callback` (any port: native apps pick one at run time). Everything else is refused
 * without redirecting.
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
  if (u.protocol !== 'http:' || (u.hostname !== '127.0.0.1' && u.hostname !== 'localhost')) return undefined;
  if (
    u.pathname !== '/callback' ||
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
