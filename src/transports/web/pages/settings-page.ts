import { html } from 'hono/html';
import type { Hono } from 'hono';
import { agentAccess, PLAN_LIMITS } from '../../../core/accounts/plan.ts';
import { passwordMayBeKnown, type AttemptsBefore } from '../../../core/sessions/sign-in-history.ts';
import { notice, page, when } from '../layout.ts';
import { SIGN_IN_HISTORY_SHOWN } from './browsers-page.ts';
import type { RestoredNotice } from '../../../core/settings/restored-copy.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';

const day = (d: Date) => d.toISOString().slice(0, 10);

/** The query the sign-in adds when it lands the person here with wrong passwords or codes to tell of. */
export const JUST_SIGNED_IN = 'signedin';

const times = (n: number, one: string, many: string) => (n === 1 ? one : `${String(n)} ${many}`);

/** What was tried before this sign-in, in words: counts, then where from, then when the previous sign-in was. */
function attemptsWords(a: AttemptsBefore) {
  const tried = [
    a.wrongPasswords > 0 ? times(a.wrongPasswords, 'a wrong password', 'wrong passwords') : '',
    a.wrongCodes > 0
      ? times(
          a.wrongCodes,
          'the right password with a wrong code',
          'times the right password with a wrong code',
        )
      : '',
  ]
    .filter((t) => t !== '')
    .join(' and ');
  const [first, ...more] = a.addresses;
  const from =
    first === undefined
      ? ''
      : ` from ${first}${more.length === 0 ? '' : ` and ${times(more.length, 'one other address', 'other addresses')}`}`;
  return html`<div class="notice" role="status" data-attempts>
    Before you signed in${a.since === null ? '' : html`, since your previous sign-in on ${when(a.since)}`}:
    ${tried}${from}. If that was not you, <a href="/settings/browsers#history">see your sign-in history</a>.
  </div>`;
}

/** A restore of the service's data (decision 0137): what the person may have to do again. */
function restoredWords(r: RestoredNotice) {
  return html`<div class="notice error" role="alert" data-restored>
    On ${when(r.restoredAt)} this service was restored from a copy of its data made
    ${r.copyMadeAt === null ? 'earlier' : html`on ${when(r.copyMadeAt)}`}. What you changed after that is not
    in it: if since then you changed your password, your passkeys or two-step sign-in, revoked an API key or
    disconnected an agent, do it again (<a href="/settings/advanced">API keys</a>,
    <a href="/settings/agents">agents</a>). Sends and unsubscribe requests that were waiting for you may have
    gone out: check your Sent folder before asking again. Every browser was signed out, and agents that
    connect by signing in ask you to allow them again.
  </div>`;
}

/** Settings overview: who is signed in, the plan, and whether agents can act right now (and if not, why). */
export function registerSettingsPage(app: Hono<WebEnv>, deps: WebDeps): void {
  app.get('/', (c) => c.redirect(c.get('account') === undefined ? '/signin' : '/settings', 303));

  app.get('/settings', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    // A stranger's right password with a wrong code: said here too, where the person lands (decision 0091).
    const passwordOut = passwordMayBeKnown(await deps.sessions.history(account, SIGN_IN_HISTORY_SHOWN));
    const attempts =
      c.req.query(JUST_SIGNED_IN) === '1'
        ? await deps.sessions.attemptsBeforeSignIn(account, c.get('sessionToken') ?? '')
        : undefined;
    const access = agentAccess(account, deps.clock.now());
    // Told to the people whose account the copy held: one made since has nothing to repeat.
    const restored = await deps.restored();
    const restoredNotice =
      restored !== undefined && account.createdAt < restored.restoredAt ? restored : undefined;
    const planText =
      account.plan === 'pro'
        ? 'Pro'
        : `Trial${account.trialEndsAt === null ? '' : `, until ${day(account.trialEndsAt)}`}`;
    return c.html(
      page({
        nonce: c.get('nonce'),
        title: 'Settings',
        account,
        csrf: c.get('csrf'),
        body: html`<h1>Settings</h1>
          ${c.req.query('welcome') === '1' ? notice('ok', 'Welcome! Next: create an API key for your agent under Advanced.') : ''}
          ${access.allowed ? '' : notice('error', `Agents cannot use this account right now, and its inboxes are not kept in sync until they can. ${access.description}`)}
          ${
            passwordOut === undefined
              ? ''
              : html`<div class="notice error" role="alert">
                  Someone may know your password: it was entered correctly with a wrong code on
                  ${when(passwordOut.at)}.
                  <a href="/settings/browsers#history">See your sign-in history</a>.
                </div>`
          }
          ${attempts === undefined ? '' : attemptsWords(attempts)}
          ${restoredNotice === undefined ? '' : restoredWords(restoredNotice)}
          <dl>
            <dt>Signed in as</dt>
            <dd>${account.email}</dd>
            <dt>Plan</dt>
            <dd>${planText} · up to ${String(PLAN_LIMITS[account.plan].activeApiKeys)} active API key(s)</dd>
            <dt>Payment</dt>
            <dd>${account.paymentState === 'ok' ? 'In order' : 'Failed'}</dd>
          </dl>
          <h2>More</h2>
          <ul>
            <li><a href="/settings/preferences">Sending, VIPs and triage</a></li>
            <li><a href="/settings/activity">Agent activity</a></li>
            <li><a href="/settings/advanced">Advanced: API keys</a></li>
            <li><a href="/settings/password">Change your password</a></li>
            <li><a href="/settings/two-step">Two-step sign-in</a></li>
            <li><a href="/settings/passkeys">Passkeys</a></li>
            <li><a href="/settings/browsers">Signed-in browsers and sign-in history</a></li>
            <li><a href="/settings/delete">Delete this account</a></li>
          </ul>`,
      }),
    );
  });
}
