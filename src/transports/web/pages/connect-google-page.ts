import { html } from 'hono/html';
import type { Hono } from 'hono';
import type { InboxService } from '../../../core/inboxes/inbox-service.ts';
import { GOOGLE_CALLBACK_PATH } from '../google-callback-path.ts';
import { notice, page } from '../layout.ts';
import type { WebEnv } from '../web-env.ts';

/**
 * Where Google sends the person back (the redirect URI registered on the OAuth client). The `state` is the
 * capability: single use, bound to one inbox of one account, 15 minutes. The refresh token is sealed at once and
 * never shown; the page only says what happened and that the person can go back to their assistant.
 */
export function registerConnectGooglePage(app: Hono<WebEnv>, inboxes: InboxService): void {
  const failed = (title: string, message: string) =>
    page({
      title,
      body: html`<h1>${title}</h1>
        ${notice('error', message)}`,
    });

  app.get(GOOGLE_CALLBACK_PATH, async (c) => {
    const state = c.req.query('state') ?? '';
    const code = c.req.query('code') ?? '';
    const denied = c.req.query('error');
    if (denied !== undefined) {
      // The person declined (access_denied) or Google refused: say so in words, never echo Google's text.
      return c.html(
        failed(
          'Not connected',
          denied === 'access_denied'
            ? 'You did not allow access, so nothing was connected. Ask your assistant for a new sign-in link if you change your mind.'
            : 'Google did not complete the sign-in. Ask your assistant for a new sign-in link and try again.',
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
    const result = await inboxes.completeGoogleSignIn(state, code);
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
