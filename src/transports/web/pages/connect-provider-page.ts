import { html } from 'hono/html';
import type { Hono } from 'hono';
import {
  SIGN_IN_NAMES,
  type InboxService,
  type SignInProvider,
} from '../../../core/inboxes/inbox-service.ts';
import { CALLBACK_PATH } from '../callback-paths.ts';
import { notice, page } from '../layout.ts';
import type { WebEnv } from '../web-env.ts';

/**
 * Where Google or Microsoft sends the person back (the redirect URI registered on the OAuth client). The `state` is the
 * capability: single use, bound to one inbox of one account, 15 minutes. The refresh token is sealed at once and
 * never shown; the page only says what happened and that the person can go back to their assistant.
 */
export function registerConnectProviderPages(app: Hono<WebEnv>, inboxes: InboxService): void {
  for (const provider of ['google', 'microsoft'] as const) register(app, inboxes, provider);
}

function register(app: Hono<WebEnv>, inboxes: InboxService, provider: SignInProvider): void {
  const brand = SIGN_IN_NAMES[provider].brand;
  const failed = (title: string, message: string) =>
    page({
      title,
      body: html`<h1>${title}</h1>
        ${notice('error', message)}`,
    });

  app.get(CALLBACK_PATH[provider], async (c) => {
    const state = c.req.query('state') ?? '';
    const code = c.req.query('code') ?? '';
    const denied = c.req.query('error');
    if (denied !== undefined) {
      // The person declined (access_denied) or the provider refused: say so in words, never echo its text.
      return c.html(
        failed(
          'Not connected',
          denied === 'access_denied'
            ? 'You did not allow access, so nothing was connected. Ask your assistant for a new sign-in link if you change your mind.'
            : `${brand} did not complete the sign-in. Ask your assistant for a new sign-in link and try again.`,
        ),
        400,
      );
    }
    if (state === '' || code === '' || state.length > 200 || code.length > 2000)
      return c.html(
        failed(
          'Link expired',
          'This sign-in link has expired or was used. Ask your assistant for a new one.',
        ),
        400,
      );
    const result = await inboxes.completeSignIn(provider, state, code);
    if (!result.ok) {
      return result.error.reason === 'link_invalid'
        ? c.html(
            failed(
              'Link expired',
              'This sign-in link has expired or was used. Ask your assistant for a new one.',
            ),
            410,
          )
        : c.html(
            failed('Not connected', `${result.error.message}. Ask your assistant for a new sign-in link.`),
            400,
          );
    }
    const { inbox, previousEmail } = result.value;
    return c.html(
      page({
        title: 'Connected',
        body: html`<h1>${inbox.email} is connected</h1>
          ${
            previousEmail === null
              ? ''
              : notice(
                  'info',
                  `You signed in as ${inbox.email}, not ${previousEmail}, so this inbox now uses ${inbox.email}.`,
                )
          }
          ${notice('ok', 'You can close this page and go back to your assistant.')}`,
      }),
    );
  });
}
