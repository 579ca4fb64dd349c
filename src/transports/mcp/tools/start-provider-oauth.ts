import * as z from 'zod';
import { SIGN_IN_NAMES, type SignInProvider } from '../../../core/inboxes/inbox-service.ts';
import { fromInboxError } from '../tool-helpers.ts';
import { payload } from '../output-shapes.ts';
import { defineTool, type ToolDefinition } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';

/** What the person is told when the operator has not set up a provider's sign-in. */
export function signInNotSetUp(provider: SignInProvider): string {
  const w = SIGN_IN_NAMES[provider];
  return `${w.mail} sign-in is not set up on this server yet. Whoever runs it needs to register an OAuth app with ${w.brand} and set ${w.settings} (the README explains how).`;
}

function startOAuth(provider: SignInProvider): ToolDefinition {
  const w = SIGN_IN_NAMES[provider];
  return defineTool({
    name: `start_${provider}_oauth`,
    needs: 'setup',
    title: `Get a ${w.brand} sign-in link`,
    description:
      `For ${provider} inboxes: returns a ${w.brand} sign-in link (15 minutes, works once) for the person to open. ${w.brand} asks ` +
      `them to allow mail access; this service never sees their password. Give the person the link, wait until they say they ` +
      `are done, then call get_connection_status. Also the fix when a ${provider} inbox needs reconnecting.`,
    input: z.strictObject({ inboxId: z.string() }),
    output: payload({ url: z.string(), expiresAt: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    async run({ inboxId }, ctx) {
      const r = await ctx.services.inboxes.startSignIn(ctx.principal, inboxId, provider);
      if (!r.ok) {
        if (r.error.code === 'sign_in_not_configured')
          return toolError('not_supported', r.error.message, { sayToHuman: signInNotSetUp(provider) });
        if (r.error.code === 'provider_error')
          return toolError('provider_error', r.error.message, {
            sayToHuman: `${w.brand}'s sign-in could not be reached just now. Let's try again in a few minutes.`,
          });
        return fromInboxError(r.error);
      }
      return toolOk({
        url: r.value.url,
        expiresAt: r.value.expiresAt.toISOString(),
        sayToHuman: `Open this link to connect ${r.value.inbox.email} with ${w.brand} — it works once, for 15 minutes: ${r.value.url}`,
        agentOnly: ['Wait for the person to say they are done, then call get_connection_status.'],
      });
    },
  });
}

export const startGoogleOAuth = startOAuth('google');
export const startMicrosoftOAuth = startOAuth('microsoft');
