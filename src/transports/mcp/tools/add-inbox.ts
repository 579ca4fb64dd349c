import * as z from 'zod';
import { inboxView } from '../../../core/inboxes/inbox-view.ts';
import { PROVIDERS } from '../../../core/inboxes/inbox.ts';
import { fromInboxError } from '../tool-helpers.ts';
import { INBOX_VIEW, payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';

export const addInbox = defineTool({
  name: 'add_inbox',
  needs: 'setup',
  spansInboxes: true,
  title: 'Add an inbox',
  description:
    'Registers a mailbox with no credential yet. provider is google, microsoft, icloud or imap; imapHost is required for imap ' +
    '(imapPort defaults to 993; imapUser only when the login differs from the address; smtpHost/smtpPort for sending default to ' +
    'the IMAP host with imap. replaced by smtp. and port 587). Next, the person connects it: ' +
    'start_imap_secret_capture for icloud/imap. Never ask for or pass a password.',
  input: z.strictObject({
    label: z.string().min(1).max(80),
    provider: z.enum(PROVIDERS),
    email: z.string().max(254),
    imapHost: z.string().max(253).optional(),
    imapPort: z.number().int().optional(),
    imapUser: z.string().max(254).optional(),
    smtpHost: z.string().max(253).optional(),
    smtpPort: z.number().int().optional(),
  }),
  output: payload({ inbox: INBOX_VIEW, alreadyAdded: z.literal(true).optional() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    const r = await ctx.services.inboxes.add(ctx.principal.accountId, args);
    if (!r.ok) return fromInboxError(r.error);
    const { inbox, added } = r.value;
    const next =
      inbox.provider === 'google' || inbox.provider === 'microsoft'
        ? `start_${inbox.provider}_oauth`
        : 'start_imap_secret_capture';
    const connect = `Call ${next} with inboxId ${inbox.id} and give the person the link it returns.`;
    if (added)
      return toolOk({
        inbox: inboxView(inbox),
        sayToHuman: `I added “${inbox.label}” (${inbox.email}). It is not connected yet.`,
        agentOnly: [connect],
      });
    // The same mailbox was added before (decision 0043): that inbox, never a second one syncing the same mail.
    const connected = inbox.connectionStatus === 'connected';
    return toolOk({
      inbox: inboxView(inbox),
      alreadyAdded: true,
      sayToHuman: `“${inbox.label}” (${inbox.email}) was already added${connected ? ' and is connected' : ''}.`,
      agentOnly: [
        connected
          ? `Nothing was added: use inboxId ${inbox.id}.`
          : `Nothing was added. It is not connected: ${connect}`,
      ],
    });
  },
});
