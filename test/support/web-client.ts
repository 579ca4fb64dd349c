import type { App } from '../../src/app.ts';

/** A cookie-keeping client for in-process page tests: it reads the CSRF token from pages like a browser would. */
export class WebClient {
  readonly cookies = new Map<string, string>();
  lastHtml = '';
  private readonly app: App;
  private readonly headers: Record<string, string>;

  constructor(app: App, headers: Record<string, string> = {}) {
    this.app = app;
    this.headers = headers;
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(this.headers)) if (!headers.has(k)) headers.set(k, v);
    if (this.cookies.size > 0)
      headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await this.app.fetch(
      new Request(new URL(path, this.app.config.baseUrl), { ...init, headers, redirect: 'manual' }),
    );
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  async get(path: string): Promise<Response> {
    const res = await this.request(path);
    if ((res.headers.get('content-type') ?? '').includes('html')) this.lastHtml = await res.clone().text();
    return res;
  }

  get csrf(): string {
    const m = /name="_csrf" value="([a-z0-9]+)"/.exec(this.lastHtml);
    if (m?.[1] === undefined) throw new Error('no CSRF token on the last page');
    return m[1];
  }

  /** Posts a form the way a browser does, with the page's CSRF token unless one is given. */
  async post(
    path: string,
    fields: Record<string, string | readonly string[]>,
    opts: { csrf?: string | null; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    // A list is sent as the same field repeated, as a browser sends checked boxes of one name.
    const body = new URLSearchParams(
      Object.entries(fields).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : v.map((x) => [k, x]))),
    );
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (token !== null) body.set('_csrf', token);
    const res = await this.request(path, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...opts.headers },
    });
    if ((res.headers.get('content-type') ?? '').includes('html')) this.lastHtml = await res.clone().text();
    return res;
  }
}

/** The owner's sign-in, as setUpOwner and the agent helpers create it. */
export const OWNER = { email: 'owner@example.test', password: 'correct horse battery' } as const;

/** Creates the owner account through the setup link, signed in. */
export async function setUpOwner(
  app: App,
  email: string = OWNER.email,
  password: string = OWNER.password,
): Promise<WebClient> {
  const token = await app.services.accounts.issueSetupLink();
  const web = new WebClient(app);
  await web.get(`/setup?token=${token}`);
  const res = await web.post('/setup', { token, email, password });
  if (res.status !== 303) throw new Error(`setup failed: ${String(res.status)} ${web.lastHtml}`);
  return web;
}

/** Another account, via an invitation. */
export async function invitedAccount(
  app: App,
  email: string,
  password = 'another long passphrase',
): Promise<WebClient> {
  const issued = await app.services.accounts.issueInvitation(email);
  if (!issued.ok) throw new Error('bad email');
  const web = new WebClient(app);
  await web.get(`/invite?token=${issued.value}`);
  const res = await web.post('/invite', { token: issued.value, email, password });
  if (res.status !== 303) throw new Error(`invite failed: ${String(res.status)}`);
  return web;
}

/** Creates a key from the Advanced page and returns the full value shown once. */
export async function createKeyViaPage(web: WebClient, name = 'agent'): Promise<string> {
  await web.get('/settings/advanced');
  await web.post('/settings/advanced/keys', { name });
  await web.get('/settings/advanced');
  const m = /itk_[a-z0-9]{40}/.exec(web.lastHtml);
  if (m === null) throw new Error('no key shown');
  return m[0];
}
