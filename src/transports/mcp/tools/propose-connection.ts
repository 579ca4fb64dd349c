import * as z from 'zod';
import { PROVIDERS } from '../../../core/inboxes/inbox.ts';
import { SIGN_IN_NAMES } from '../../../core/inboxes/inbox-service.ts';
import type { ProviderGuess } from '../../../core/inboxes/provider-detection.ts';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';
import { signInNotSetUp } from './start-provider-oauth.ts';

/** What the person and the agent are told: how this mailbox connects here, and the calls that do it. */
function advice(
  email: string,
  guess: ProviderGuess,
  canSignIn: boolean,
): { sayToHuman: string; agentOnly: string[] } {
  const kind =
    guess.hostedBy ??
    {
      google: SIGN_IN_NAMES.google.mail,
      microsoft: SIGN_IN_NAMES.microsoft.mail,
      icloud: 'iCloud Mail',
      imap: 'standard IMAP',
    }[guess.provider];
  const looks =
    guess.hostedBy === null
      ? `This looks like a ${kind} mailbox.`
      : `Mail for ${email.slice(email.lastIndexOf('@') + 1)} is handled by ${kind}.`;
  const never = 'You will never type a password into this chat.';
  if (guess.provider === 'google' || guess.provider === 'microsoft') {
    const brand = SIGN_IN_NAMES[guess.provider].brand;
    if (!canSignIn)
      return {
        sayToHuman: `${looks} ${signInNotSetUp(guess.provider)}`,
        agentOnly: [
          `Tell the person. add_inbox with provider "${guess.provider}" works now; start_${guess.provider}_oauth once the sign-in is set up.`,
        ],
      };
    return {
      sayToHuman: `${looks} It connects with a ${brand} sign-in: I will give you a link, ${brand} asks you to allow mail access, and this service never sees your password. ${never}`,
      agentOnly: [
        `Call add_inbox with provider "${guess.provider}".`,
        `Then call start_${guess.provider}_oauth.`,
      ],
    };
  }
  const server = `${guess.imapHost ?? ''}, port ${String(guess.imapPort ?? 993)}`;
  if (guess.provider === 'icloud')
    return {
      sayToHuman: `${looks} It connects with an app-specific password from account.apple.com (Sign-In and Security → App-Specific Passwords), entered on a secure page I will link.${guess.hostedBy === null ? '' : ' Its user name is your iCloud Mail address (the one ending in @icloud.com), not this address.'} ${never}`,
      agentOnly: [
        guess.hostedBy === null
          ? 'Call add_inbox with provider "icloud".'
          : 'Ask the person for their @icloud.com address, then call add_inbox with provider "icloud" and that address as imapUser.',
        'Then call start_imap_secret_capture and give the person the link.',
      ],
    };
  return {
    sayToHuman: `${looks} It connects with the mail server's password — or an app password, if the account has two-step sign-in — entered on a secure page I will link (server${guess.hostedBy === null ? ' suggestion' : ''}: ${server} — please confirm it). ${never}`,
    agentOnly: [
      'Confirm the IMAP host with the person, then call add_inbox with provider "imap", imapHost and (if needed) imapPort/imapUser.',
      'Then call start_imap_secret_capture and give the person the link.',
    ],
  };
}

export const proposeConnection = defineTool({
  name: 'propose_connection',
  needs: 'setup',
  spansInboxes: true,
  title: 'Propose how to connect an address',
  description:
    'Works out which provider an email address uses (Gmail, Microsoft/Outlook, iCloud, or another IMAP server — for a ' +
    'custom domain, from where its mail is delivered: Google Workspace and Microsoft 365 domains connect by their sign-in) ' +
    'and what the person will need. Creates nothing. Use it before add_inbox, then tell the person the sayToHuman text. ' +
    'Never ask the person for a password in chat.',
  input: z.strictObject({ email: z.string().max(254) }),
  output: payload({
    email: z.string(),
    provider: z.enum(PROVIDERS),
    imapHost: z.string().optional(),
    imapPort: z.number().nullable().optional(),
    hostedBy: z.string().optional(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run({ email }, ctx) {
    const inboxes = ctx.services.inboxes;
    const guess = await inboxes.guess(email);
    if (guess === undefined) return toolError('invalid_arguments', 'email must be a valid address.');
    const canSignIn =
      guess.provider === 'google' || guess.provider === 'microsoft'
        ? inboxes.canSignIn(guess.provider)
        : true;
    return toolOk({
      email,
      provider: guess.provider,
      ...(guess.imapHost !== null && { imapHost: guess.imapHost, imapPort: guess.imapPort }),
      ...(guess.hostedBy !== null && { hostedBy: guess.hostedBy }),
      ...advice(email, guess, canSignIn),
    });
  },
});
