import * as z from 'zod';
import { inboxView } from '../../../core/inboxes/inbox-view.ts';
import { PROVIDERS } from '../../../core/inboxes/inbox.ts';
import { fromInboxError } from '../tool-helpers.ts';
import { INBOX_VIEW, payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';

export const addInbox = defineTool({
  name: 'add_inbox',
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
  output: payload({ inbox: INBOX_VIEW }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    const r = await ctx.services.inboxes.add(ctx.principal.accountId, args);
    if (!r.ok) return fromInboxError(r.error);
    const inbox = inboxView(r.value);
    const next =
      args.provider === 'google' || args.provider === 'microsoft'
        ? `start_${args.provider}_oauth`
        : 'start_imap_secret_capture';
    return toolOk({
      inbox,
      sayToHuman: `I added “${r.value.label}” (${r.value.email}). It is not connected yet.`,
      agentOnly: [`Call ${next} with inboxId ${r.value.id} and give the person the link it returns.`],
    });
  },
});
