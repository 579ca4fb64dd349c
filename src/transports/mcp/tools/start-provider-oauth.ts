import * as z from 'zod';
import { GOOGLE_NOT_CONFIGURED } from '../../../core/inboxes/inbox-service.ts';
import { fromInboxError, ownedInbox } from '../tool-helpers.ts';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';

export const startGoogleOAuth = defineTool({
  name: 'start_google_oauth',
  title: 'Get a Google sign-in link',
  description:
    'For google inboxes: returns a Google sign-in link (15 minutes, works once) for the person to open. Google asks them ' +
    'to allow Gmail access; this service never sees their password. Give the person the link, wait until they say they ' +
    'are done, then call get_connection_status. Also the fix when a google inbox needs reconnecting.',
  input: z.strictObject({ inboxId: z.string() }),
  output: payload({ url: z.string(), expiresAt: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run({ inboxId }, ctx) {
    const r = await ctx.services.inboxes.startGoogleSignIn(ctx.principal.accountId, inboxId);
    if (!r.ok) {
      if (r.error.message === GOOGLE_NOT_CONFIGURED)
        return toolError('not_supported', r.error.message, {
          sayToHuman:
            'Gmail sign-in is not set up on this server yet. Whoever runs it needs to create a Google OAuth client and set GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET (the README explains how).',
        });
      return fromInboxError(r.error);
    }
    return toolOk({
      url: r.value.url,
      expiresAt: r.value.expiresAt.toISOString(),
      sayToHuman: `Open this link to connect ${r.value.inbox.email} with Google — it works once, for 15 minutes: ${r.value.url}`,
      agentOnly: ['Wait for the person to say they are done, then call get_connection_status.'],
    });
  },
});

export const startMicrosoftOAuth = defineTool({
  name: 'start_microsoft_oauth',
  title: 'Get a Microsoft sign-in link',
  description:
    'For microsoft inboxes: returns a Microsoft sign-in link for the person. Not available on this server yet: it answers not_supported.',
  input: z.strictObject({ inboxId: z.string() }),
  // Not available yet: it always answers an error.
  output: z.never(),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run({ inboxId }, ctx) {
    const r = await ownedInbox(ctx, inboxId);
    if (!r.ok) return r.error;
    return toolError('not_supported', 'Microsoft sign-in is not available on this server yet.', {
      sayToHuman:
        'Connecting Microsoft mailboxes is not available here yet. An IMAP connection works in the meantime where Microsoft allows it.',
    });
  },
});
