import type { Context } from 'hono';
import { InvalidRequestError, OAuthError } from '../../oauth/oauth-error.ts';
import { holdsNul } from '../../lib/nul.ts';

/** RFC 6749 §5.2 error bodies, never cached; 401 invalid_client names the scheme the client tried. */
export function oauthErrorResponse(e: unknown, opts: { basicAuthUsed?: boolean } = {}): Response | undefined {
  if (!(e instanceof OAuthError)) return undefined;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    pragma: 'no-cache',
  };
  if (e.status === 401 && opts.basicAuthUsed === true) headers['www-authenticate'] = 'Basic realm="oauth"';
  return new Response(JSON.stringify({ error: e.code, error_description: e.message }), {
    status: e.status,
    headers,
  });
}

export function noStoreJson(c: Context, body: unknown, status: 200 | 201 = 200): Response {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  return c.json(body, status);
}

/** Set, in what `formBody` returns, to why the form is malformed: the route answers `invalid_request` with it. */
const REFUSED = '__refused';

/** Throws `invalid_request` for a form `formBody` found malformed; call inside the route's OAuth error handling. */
export function refuseMalformed(form: Record<string, string | undefined>): void {
  const why = form[REFUSED];
  if (why !== undefined) throw new InvalidRequestError(why);
}

/** Form fields of a token/revocation request (application/x-www-form-urlencoded per RFC 6749). */
export async function formBody(c: Context): Promise<Record<string, string | undefined>> {
  const type = c.req.header('content-type') ?? '';
  if (!type.includes('application/x-www-form-urlencoded')) return {};
  const params = new URLSearchParams(await c.req.text());
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of params) {
    // RFC 6749 §3.2: parameters must not repeat. No parameter holds NUL (decision 0060): malformed, before any lookup.
    if (k in out) return { [REFUSED]: `Parameter repeated: ${k}.` };
    if (holdsNul(k) || holdsNul(v)) return { [REFUSED]: 'A parameter holds a NUL character (U+0000).' };
    out[k] = v;
  }
  return out;
}

/** Client credentials from `Authorization: Basic` (RFC 6749 §2.3.1, form-urlencoded parts) or the body. */
export function clientCredentials(c: Context, form: Record<string, string | undefined>) {
  const header = c.req.header('authorization');
  if (header?.startsWith('Basic ') === true) {
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    const dec = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    };
    const clientId = i < 0 ? undefined : dec(decoded.slice(0, i));
    // A client id that cannot exist is an unknown client, without a lookup (decision 0060).
    return {
      clientId: clientId !== undefined && holdsNul(clientId) ? '' : clientId,
      secret: i < 0 ? undefined : dec(decoded.slice(i + 1)),
      method: 'client_secret_basic' as const,
      basic: true,
    };
  }
  const secret = form['client_secret'];
  return {
    clientId: form['client_id'],
    secret,
    method: secret === undefined ? ('none' as const) : ('client_secret_post' as const),
    basic: false,
  };
}
