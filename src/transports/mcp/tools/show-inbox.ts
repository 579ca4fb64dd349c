import * as z from 'zod';
import { selectedPageQuery } from '../../../core/reading/read-service.ts';
import { agentMessage } from '../next-steps.ts';
import { fitItems } from '../page-fit.ts';
import { DEMO, MESSAGE_PREVIEW, payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { allows } from '../../../core/auth/agent-powers.ts';
import { toolError, toolOkForView } from '../tool-error.ts';
import { clamp, demoNote, usableInboxWithFolders } from '../tool-helpers.ts';
import { VIEWS } from '../views/views.ts';

export const showInbox = defineTool({
  name: 'show_inbox',
  needs: 'read',
  title: 'Show the inbox',
  description:
    'Shows the person an inbox’s synced messages, newest first, as a list with Archive, Trash, Spam and Star buttons (each ' +
    'change offers Undo) in apps with MCP Apps. inboxId from list_inboxes (default: the first inbox); unreadOnly; folder (one ' +
    'canonical id or name); limit 1..100 (default 25); offset (the previous nextOffset). Hosts without MCP Apps get `text`, a ' +
    'numbered list to show the person as it is; act on their choice with act_on_messages. Sender words are marked as in list_messages.',
  input: z.strictObject({
    inboxId: z.string().optional(),
    unreadOnly: z.boolean().optional(),
    folder: z.string().max(300).optional(),
    limit: z.number().optional(),
    offset: z.number().optional(),
  }),
  output: payload({
    inbox: z.object({ id: z.string(), label: z.string(), email: z.string(), provider: z.string() }),
    /** Every inbox of the account that is not paused, for the view's tabs. */
    inboxes: z.array(z.object({ id: z.string(), label: z.string() })),
    messages: z.array(MESSAGE_PREVIEW),
    total: z.number(),
    nextOffset: z.number().nullable(),
    unreadOnly: z.boolean(),
    text: z.string(),
    ...DEMO,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  resourceUri: VIEWS.triage.uri,
  calledByViews: true,
  async run(args, ctx) {
    const all = (await ctx.services.inboxes.all(ctx.principal)).filter((i) => !i.paused);
    const inboxId = args.inboxId ?? all[0]?.id;
    if (inboxId === undefined)
      return toolError(
        'inbox_not_found',
        'This account has no inbox yet: connect one first (propose_connection).',
      );
    const offset = clamp(args.offset, 0, Number.MAX_SAFE_INTEGER, 0);
    const unreadOnly = args.unreadOnly === true;
    const q = { unreadOnly, folder: args.folder, limit: clamp(args.limit, 1, 100, 25), offset };
    const page = selectedPageQuery(q);
    const inbox = await usableInboxWithFolders(ctx, inboxId, page && { page });
    if (!inbox.ok) return inbox.error;
    const r = await ctx.services.read.listMessages(inbox, q);
    if (!r.ok) return toolError(r.error.code, agentMessage(r.error));
    const messages = fitItems(r.value.messages);
    const nextOffset =
      messages.length < r.value.messages.length ? offset + messages.length : r.value.nextOffset;
    const w = (text: string) => ctx.marker.wrap(text);
    const lines = messages.map(
      (m, i) =>
        `${String(offset + i + 1)}. ${m.date.slice(0, 10)}${m.unread ? ' · unread' : ''}${m.starred ? ' · starred' : ''} · ` +
        `${w(m.from.name || m.from.address)} <${w(m.from.address)}> · ${w(m.subject)} · messageId ${m.messageId}`,
    );
    const head = `${inbox.inbox.label}: ${String(r.value.total)} ${unreadOnly ? 'unread ' : ''}message${r.value.total === 1 ? '' : 's'} synced.`;
    // The view offers Archive, Trash, Spam and Star only to an agent the person lets tidy (decision 0141).
    return toolOkForView(
      {
        inbox: {
          id: inbox.inbox.id,
          label: inbox.inbox.label,
          email: inbox.inbox.email,
          provider: inbox.inbox.provider,
        },
        inboxes: all.map((i) => ({ id: i.id, label: i.label })),
        messages,
        total: r.value.total,
        nextOffset,
        unreadOnly,
        text: [head, ...lines, ...(nextOffset === null ? [] : [`More: offset ${String(nextOffset)}.`])].join(
          '\n',
        ),
        ...demoNote(inbox.inbox),
        ...(r.value.total === 0 &&
          r.value.folders.length === 0 && { agentOnly: ['Nothing synced yet: call sync_inbox first.'] }),
      },
      {
        may: { tidy: allows(ctx.principal.powers, 'tidy') },
      },
    );
  },
});
