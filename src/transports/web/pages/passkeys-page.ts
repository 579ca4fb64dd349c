import { html } from 'hono/html';
import type { Context, Hono } from 'hono';
import type { Account } from '../../../core/accounts/account.ts';
import { PASSKEY_NAME_MAX, PASSKEYS_MAX } from '../../../core/sessions/passkey-service.ts';
import { notice, page, when, type Html } from '../layout.ts';
import { formFields } from '../form.ts';
import { passwordClient } from '../password-client.ts';
import { passkeyCeremony, postedCredential } from '../passkey-script.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';
import { codeField, passwordRefused } from './password-pages.ts';
import { withPassword } from './two-step-page.ts';

const PATH = '/settings/passkeys';

const DONE: Readonly<Record<string, string>> = {
  added: 'Your passkey is added. Next time, sign in with it: no password, no code.',
  removed:
    'The passkey is removed. It no longer signs in here (delete it from your device or password manager too).',
};

/**
 * Settings → Passkeys (decision 0092): the passkeys that sign in to the account, when each was added and last used;
 * adding one (with the password, then the browser's own prompt) and removing one (with the password).
 */
export function registerPasskeysPage(app: Hono<WebEnv>, deps: WebDeps): void {
  const listPage = async (c: Context<WebEnv>, account: Account, error?: string) => {
    const done = DONE[c.req.query('done') ?? ''];
    const keys = await deps.passkeys.list(account);
    // With two-step sign-in on, a passkey is added or removed with a code too: it is a way in of its own.
    const withCode = await deps.secondFactor.isOn(account.id);
    const code = (id: string) => (withCode ? codeField(id) : '');
    return page({
      nonce: c.get('nonce'),
      title: 'Passkeys',
      account,
      csrf: c.get('csrf'),
      body: html`<h1>Passkeys</h1>
        ${notice('ok', done)} ${notice('error', error)}
        <p>
          A passkey signs you in with your device’s lock — fingerprint, face or PIN — instead of your password
          and code. It works only on this site, so a look-alike page cannot take it.
        </p>
        ${
          deps.passkeys.available
            ? ''
            : notice(
                'info',
                'Passkeys need this service at a domain name, not an IP address: the operator sets BASE_URL to one (http://localhost:… works on the computer it runs on).',
              )
        }
        ${
          keys.length === 0
            ? html`<p class="muted">No passkeys yet.</p>`
            : html`<table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Added</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Remove</th>
                  </tr>
                </thead>
                <tbody>
                  ${keys.map(
                    (k, i) =>
                      html`<tr data-passkey>
                        <td>${k.name}</td>
                        <td>${when(k.createdAt)}</td>
                        <td>${k.lastUsedAt === null ? 'Never' : when(k.lastUsedAt)}</td>
                        <td>
                          ${withPassword(
                            c,
                            account,
                            `${PATH}/remove`,
                            html`${code(`remove-${String(i)}-code`)}
                              <input type="hidden" name="credentialId" value="${k.credentialId}" />
                              <button class="danger" type="submit">Remove “${k.name}”</button>`,
                            `remove-${String(i)}-`,
                          )}
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
        ${
          deps.passkeys.available
            ? html`<h2>Add a passkey</h2>
                ${withPassword(
                  c,
                  account,
                  `${PATH}/begin`,
                  html`${code('code')}
                    <label for="name">Name it (optional)</label>
                    <input
                      id="name"
                      name="name"
                      maxlength="${String(PASSKEY_NAME_MAX)}"
                      placeholder="Work laptop"
                    />
                    <button type="submit">Continue</button>`,
                )}`
            : ''
        }`,
    });
  };

  /** The page that asks the browser for a new passkey: its options, the button, the form its answer goes by. */
  const addPage = (
    c: Context<WebEnv>,
    account: Account,
    options: Record<string, unknown>,
    name: string,
  ): Html =>
    page({
      nonce: c.get('nonce'),
      title: 'Add a passkey',
      account,
      csrf: c.get('csrf'),
      body: html`<h1>Add a passkey</h1>
        <p>Your browser will ask where to keep it: this device, your phone, or your password manager.</p>
        ${passkeyCeremony({
          mode: 'create',
          options,
          action: `${PATH}/finish`,
          csrf: c.get('csrf'),
          nonce: c.get('nonce'),
          hidden: { name },
          button: 'Create the passkey',
        })}
        <p><a href="${PATH}">Cancel</a></p>`,
    });

  /** The password checked again (0067); this page, saying why, when it is refused. */
  const passwordRefusal = (c: Context<WebEnv>, account: Account, password: string, code: string) =>
    passwordRefused(c, deps, account, password, code, (error: string) => listPage(c, account, error));

  app.get(PATH, requireSignIn, async (c) => c.html(await listPage(c, signedInAccount(c))));

  app.post(`${PATH}/begin`, requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const f = await formFields(c, 'password', 'code', 'name');
    const refused = await passwordRefusal(c, account, f.password, f.code);
    if (refused !== undefined) return refused;
    const options = await deps.passkeys.addingOptions(account);
    if (!options.ok)
      return options.error.code === 'too_many'
        ? c.html(
            await listPage(
              c,
              account,
              `You have ${String(PASSKEYS_MAX)} passkeys: remove one before adding another.`,
            ),
            409,
          )
        : c.redirect(PATH, 303);
    return c.html(addPage(c, account, options.value, f.name));
  });

  app.post(`${PATH}/finish`, requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const f = await formFields(c, 'credential', 'name');
    const added = await deps.passkeys.finishAdding(
      account,
      postedCredential(f.credential),
      f.name,
      passwordClient(c, deps),
    );
    if (added.ok) return c.redirect(`${PATH}?done=added`, 303);
    const why = {
      unavailable: 'Passkeys are not available on this server.',
      expired: 'That took too long. Start again.',
      refused: 'The passkey could not be checked. Start again.',
      already_added: 'That passkey is added already.',
      too_many: `You have ${String(PASSKEYS_MAX)} passkeys: remove one before adding another.`,
    }[added.error.code];
    return c.html(await listPage(c, account, why), 400);
  });

  app.post(`${PATH}/remove`, requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const f = await formFields(c, 'password', 'code', 'credentialId');
    const refused = await passwordRefusal(c, account, f.password, f.code);
    if (refused !== undefined) return refused;
    if (!(await deps.passkeys.remove(account, f.credentialId, passwordClient(c, deps))))
      return c.html(await listPage(c, account, 'No such passkey on your account.'), 404);
    return c.redirect(`${PATH}?done=removed`, 303);
  });
}
