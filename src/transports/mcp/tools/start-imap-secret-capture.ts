import * as z from 'zod';
import { fromInboxError } from '../tool-helpers.ts';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';

export const startImapSecretCapture = defineTool({
  name: 'start_imap_secret_capture',
  needs: 'setup',
  title: 'Get a link for the mailbox password',
  description:
    'For icloud and imap inboxes: returns a single-use link (15 minutes) to a secure page where the person types the mailbox ' +
    'password (an app-specific password for iCloud). The page tests the login before saving. Give the person the link; never ' +
    'ask them to paste a password into chat. Afterwards, get_connection_status tells whether it worked.',
  input: z.strictObject({ inboxId: z.string() }),
  output: payload({ url: z.string(), expiresAt: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run({ inboxId }, ctx) {
    const r = await ctx.services.inboxes.startSecretCapture(ctx.principal, inboxId);
    if (!r.ok) return fromInboxError(r.error);
    return toolOk({
      url: r.value.url,
      expiresAt: r.value.expiresAt.toISOString(),
      sayToHuman: `Open this link to connect ${r.value.inbox.email} — it works once, for 15 minutes: ${r.value.url}${
        r.value.inbox.provider === 'icloud'
          ? ' (use an app-specific password from appleid.apple.com, not your Apple ID password)'
          : ''
      }`,
      agentOnly: ['Wait for the person to say they are done, then call get_connection_status.'],
    });
  },
});
