import * as z from 'zod';
import { PROVIDERS } from '../../../core/inboxes/inbox.ts';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';

export const proposeConnection = defineTool({
  name: 'propose_connection',
  title: 'Propose how to connect an address',
  description:
    'Works out which provider an email address uses (Gmail, Microsoft/Outlook, iCloud, or another IMAP server) and what the ' +
    'person will need. Creates nothing. Use it before add_inbox, then tell the person the sayToHuman text. Never ask the person for a password in chat.',
  input: z.strictObject({ email: z.string().max(254) }),
  output: payload({
    email: z.string(),
    provider: z.enum(PROVIDERS),
    imapHost: z.string().optional(),
    imapPort: z.number().nullable().optional(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run({ email }, ctx) {
    const guess = ctx.services.inboxes.guess(email);
    if (guess === undefined)
      return Promise.resolve(toolError('invalid_arguments', 'email must be a valid address.'));
    const how = {
      google: 'a Google sign-in (coming soon on this server)',
      microsoft: 'a Microsoft sign-in (coming soon on this server)',
      icloud:
        'an app-specific password from appleid.apple.com (Sign-In and Security → App-Specific Passwords), entered on a secure page I will link',
      imap: `the IMAP server's password, entered on a secure page I will link (server suggestion: ${guess.imapHost ?? ''}, port 993 — please confirm it)`,
    }[guess.provider];
    return Promise.resolve(
      toolOk({
        email,
        provider: guess.provider,
        ...(guess.imapHost !== null && { imapHost: guess.imapHost, imapPort: guess.imapPort }),
        sayToHuman: `This looks like a ${guess.provider === 'imap' ? 'standard IMAP' : guess.provider} mailbox. Connecting it needs ${how}. You will never type the password into this chat.`,
        agentOnly: [
          guess.provider === 'imap'
            ? 'Confirm the IMAP host with the person, then call add_inbox with provider "imap", imapHost and (if needed) imapPort/imapUser.'
            : `Call add_inbox with provider "${guess.provider}".`,
          guess.provider === 'google' || guess.provider === 'microsoft'
            ? `Then call start_${guess.provider}_oauth.`
            : 'Then call start_imap_secret_capture and give the person the link.',
        ],
      }),
    );
  },
});
