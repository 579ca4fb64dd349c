import { SignInError, type ProviderSignIn } from '../../core/inboxes/provider-sign-in.ts';
import { MailAuthError, MailProviderError } from '../../core/mail/mail-ports.ts';

/** What differs between providers: where discovery is, what to ask for, how to name it to the person. */
export interface ProviderProfile {
  /** "Google", "Microsoft": in messages. */
  readonly brand: string;
  /** The setting holding the service's client secret for this provider, named when the provider refuses it. */
  readonly secretSetting: string;
  /** The OpenID discovery document. */
  readonly discoveryUrl: string;
  readonly scopes: readonly string[];
  /** A scope the grant must include (the mail permission); checked when the token response lists scopes. */
  readonly requiredScope: string;
  /** Extra authorization parameters (Google: access_type=offline, prompt=consent). */
  readonly authorizeParams: Readonly<Record<string, string>>;
  /**
   * Where to learn the signed-in address: the userinfo endpoint, or a URL of the mail API (`/me`); and, where the
   * same answer has it, the person's name as the provider shows it on their mail.
   */
  readonly emailFrom?:
    | { readonly url: string; readonly fields: readonly string[]; readonly nameFields?: readonly string[] }
    | undefined;
}

export interface ProviderOAuthOptions {
  readonly profile: ProviderProfile;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Our callback, registered on the provider's OAuth client: `${BASE_URL}/connect/<provider>/callback`. */
  readonly redirectUri: string;
  readonly fetch?: typeof fetch;
}

interface Discovery {
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly userinfo_endpoint: string;
  readonly revocation_endpoint?: string;
}

/** A fresh access token and when it stops working; `refreshToken` when the provider rotated it (Microsoft). */
export interface AccessToken {
  readonly token: string;
  readonly expiresAt: number;
  readonly refreshToken?: string | undefined;
}

const TIMEOUT_MS = 15_000;
/**
 * After the provider refused the service's own credentials, refreshes fail at once for this long without asking it
 * again: every inbox's sync and watcher would otherwise ask, and fail, every poll (decision 0138).
 */
export const CLIENT_REFUSED_PAUSE_MS = 60_000;

/**
 * A mail provider's OAuth 2.0 endpoints (Google, Microsoft), found once by OpenID discovery: the authorization URL
 * with PKCE S256, the code exchange (client_secret_post), refreshes (keeping a rotated refresh token) and
 * revocation where the provider has it. Nothing from a response body reaches an error message but the OAuth
 * error code; no token is ever put in an error or a log line.
 */
export class ProviderOAuth implements ProviderSignIn {
  private readonly opts: ProviderOAuthOptions;
  private readonly brand: string;
  private readonly fetch: typeof fetch;
  private discovery: Promise<Discovery> | undefined;
  /** Until when refreshes fail without asking: the provider refused the service's own credentials (0138). */
  private refusedUntil = 0;

  constructor(opts: ProviderOAuthOptions) {
    this.opts = opts;
    this.brand = opts.profile.brand;
    this.fetch = opts.fetch ?? fetch;
  }

  /** The issuer's origin: Google's and Microsoft's sign-in pages are where their discovery document is. */
  get origin(): string {
    return new URL(this.opts.profile.discoveryUrl).origin;
  }

  async authorizationUrl(p: { state: string; codeChallenge: string; loginHint: string }): Promise<string> {
    const d = await this.endpoints();
    const url = new URL(d.authorization_endpoint);
    url.search = new URLSearchParams({
      client_id: this.opts.clientId,
      redirect_uri: this.opts.redirectUri,
      response_type: 'code',
      scope: this.opts.profile.scopes.join(' '),
      state: p.state,
      code_challenge: p.codeChallenge,
      code_challenge_method: 'S256',
      ...this.opts.profile.authorizeParams,
      login_hint: p.loginHint,
    }).toString();
    return url.toString();
  }

  async exchange(code: string, codeVerifier: string): Promise<{ refreshToken: string; email: string }> {
    const d = await this.endpoints();
    const res = await this.post(d.token_endpoint, {
      grant_type: 'authorization_code',
      code,
      code_verifier: codeVerifier,
      redirect_uri: this.opts.redirectUri,
    });
    const body = await jsonOf(res);
    if (!res.ok) {
      const error = oauthError(body);
      throw new SignInError(
        error === 'invalid_client'
          ? `${this.clientRefused()}; tell whoever runs this service`
          : `${this.brand} refused the sign-in (${error})`,
      );
    }
    const refreshToken = stringField(body, 'refresh_token');
    const accessToken = stringField(body, 'access_token');
    if (accessToken === undefined) throw new SignInError(`${this.brand} answered without an access token`);
    if (refreshToken === undefined)
      throw new SignInError(
        `${this.brand} answered without a refresh token (offline access was not granted)`,
      );
    const scope = stringField(body, 'scope')?.toLowerCase();
    const required = this.opts.profile.requiredScope.toLowerCase();
    if (scope !== undefined && !scope.split(' ').some((x) => x === required || x.endsWith(`/${required}`)))
      throw new SignInError(
        'The mail permission was not granted; allow it on the consent screen and try again',
      );
    return { refreshToken, ...(await this.identityOf(d, accessToken)) };
  }

  /** A new access token; `MailAuthError` when the provider no longer honours the refresh token (`invalid_grant`). */
  async refresh(refreshToken: string): Promise<AccessToken> {
    if (Date.now() < this.refusedUntil) throw new MailProviderError(this.clientRefused());
    const d = await this.endpoints();
    const started = Date.now();
    const res = await this.post(d.token_endpoint, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
    const body = await jsonOf(res);
    if (!res.ok) {
      const code = oauthError(body);
      // The service's own client id and secret refused (a secret expired: Microsoft's last 24 months at most): no
      // sign-in of the person's is at fault, and none they make would work. Their inboxes keep their sign-ins, and
      // work again once the operator renews the secret (decision 0138).
      if (code === 'invalid_client') {
        this.refusedUntil = Date.now() + CLIENT_REFUSED_PAUSE_MS;
        throw new MailProviderError(this.clientRefused());
      }
      if (code === 'invalid_grant' || code === 'unauthorized_client')
        throw new MailAuthError(`${this.brand} no longer accepts this sign-in (${code}); sign in again`);
      throw new MailProviderError(`${this.brand}'s token service failed (HTTP ${String(res.status)})`);
    }
    const token = stringField(body, 'access_token');
    if (token === undefined) throw new MailProviderError(`${this.brand} answered without an access token`);
    const expiresIn = typeof body['expires_in'] === 'number' ? body['expires_in'] : 3600;
    const rotated = stringField(body, 'refresh_token');
    return {
      token,
      expiresAt: started + expiresIn * 1000,
      ...(rotated !== undefined && rotated !== refreshToken && { refreshToken: rotated }),
    };
  }

  /** Words for the provider refusing the service's own credentials, for the person and the operator alike. */
  private clientRefused(): string {
    const p = this.opts.profile;
    // At most 200 characters: an inbox's last error keeps that many.
    return (
      `${p.brand} refused this service's own credentials (invalid_client): no ${p.brand} mailbox can be ` +
      `reached until ${p.secretSetting} is renewed. The mailbox's sign-in is not at fault`
    );
  }

  /** Revokes at the provider when it publishes a revocation endpoint (Google); otherwise there is nothing to call. */
  async revoke(refreshToken: string): Promise<void> {
    const d = await this.endpoints();
    if (d.revocation_endpoint === undefined) return;
    const res = await this.post(d.revocation_endpoint, { token: refreshToken });
    // 400 invalid_token: already revoked or expired, which is what we wanted.
    if (!res.ok && res.status !== 400)
      throw new MailProviderError(`${this.brand}'s revocation failed (HTTP ${String(res.status)})`);
  }

  private async identityOf(d: Discovery, accessToken: string): Promise<{ email: string; name?: string }> {
    const from = this.opts.profile.emailFrom ?? { url: d.userinfo_endpoint, fields: ['email'] };
    const res = await this.request(from.url, { headers: { authorization: `Bearer ${accessToken}` } });
    const body = await jsonOf(res);
    const email = from.fields
      .map((f) => stringField(body, f))
      .find((v) => v !== undefined && v.includes('@'));
    if (!res.ok || email === undefined)
      throw new SignInError(`${this.brand} did not say which address signed in`);
    if (body['email_verified'] === false)
      throw new SignInError(`${this.brand} says this address is not verified`);
    const name = (from.nameFields ?? []).map((f) => stringField(body, f)).find((v) => v !== undefined);
    return name === undefined ? { email } : { email, name };
  }

  private endpoints(): Promise<Discovery> {
    this.discovery ??= this.discover().catch((e: unknown) => {
      this.discovery = undefined; // try again next time
      throw e;
    });
    return this.discovery;
  }

  private async discover(): Promise<Discovery> {
    const res = await this.request(this.opts.profile.discoveryUrl, {});
    const body = await jsonOf(res);
    const pick = (k: keyof Discovery) => stringField(body, k);
    const authorization = pick('authorization_endpoint');
    const token = pick('token_endpoint');
    const userinfo = pick('userinfo_endpoint');
    // Where it asked and what came back (the status, the OAuth error code only): a wrong tenant or issuer in the
    // operator's settings is found from this line (Microsoft answers an unknown tenant 400 `invalid_tenant`).
    if (!res.ok || authorization === undefined || token === undefined || userinfo === undefined)
      throw new MailProviderError(
        `${this.brand} sign-in could not be discovered at ${this.opts.profile.discoveryUrl} (HTTP ${String(res.status)}` +
          `${res.ok ? ', endpoints missing' : body['error'] === undefined ? '' : ` ${oauthError(body)}`})`,
      );
    const revocation = pick('revocation_endpoint');
    return {
      authorization_endpoint: authorization,
      token_endpoint: token,
      userinfo_endpoint: userinfo,
      ...(revocation !== undefined && { revocation_endpoint: revocation }),
    };
  }

  private post(url: string, form: Record<string, string>): Promise<Response> {
    return this.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        ...form,
        client_id: this.opts.clientId,
        client_secret: this.opts.clientSecret,
      }).toString(),
    });
  }

  private async request(url: string, init: RequestInit): Promise<Response> {
    try {
      return await this.fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch {
      throw new MailProviderError(`${this.brand} sign-in could not be reached`);
    }
  }
}

async function jsonOf(res: Response): Promise<Record<string, unknown>> {
  try {
    const body: unknown = await res.json();
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function stringField(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The OAuth error code only (RFC 6749 §5.2), limited to its allowed characters: never a description. */
function oauthError(body: Record<string, unknown>): string {
  const code = stringField(body, 'error');
  return code !== undefined && /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(code) ? code : 'error';
}

/** `openid email` learns the address; gmail.modify reads, labels, moves, drafts and sends (no permanent delete). */
export function googleProfile(issuer: string): ProviderProfile {
  return {
    brand: 'Google',
    secretSetting: 'GOOGLE_CLIENT_SECRET',
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    scopes: ['openid', 'email', 'https://www.googleapis.com/auth/gmail.modify'],
    requiredScope: 'https://www.googleapis.com/auth/gmail.modify',
    // A refresh token is only issued with offline access, and again on a repeat sign-in only with consent.
    authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
  };
}

/**
 * Microsoft identity platform v2.0 on a tenant (`common` for work and personal accounts): offline_access brings a
 * refresh token (rotated on every refresh), Mail.ReadWrite and Mail.Send the mailbox; the address comes from
 * Graph's `/me`.
 */
export function microsoftProfile(authority: string, tenant: string, graphUrl: string): ProviderProfile {
  return {
    brand: 'Microsoft',
    secretSetting: 'MICROSOFT_CLIENT_SECRET',
    discoveryUrl: `${authority}/${encodeURIComponent(tenant)}/v2.0/.well-known/openid-configuration`,
    scopes: ['offline_access', 'openid', 'email', 'User.Read', 'Mail.ReadWrite', 'Mail.Send'],
    requiredScope: 'Mail.ReadWrite',
    authorizeParams: { response_mode: 'query', prompt: 'select_account' },
    // displayName: the name Exchange shows on the mailbox's mail.
    emailFrom: {
      url: `${graphUrl}/v1.0/me`,
      fields: ['mail', 'userPrincipalName'],
      nameFields: ['displayName'],
    },
  };
}
