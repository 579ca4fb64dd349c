import * as z from 'zod';
import { INBOX_VIEW, payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';

export const listInboxes = defineTool({
  name: 'list_inboxes',
  needs: 'read',
  title: 'List inboxes',
  description:
    "Lists every inbox connected to the person's account with its id, provider, address, connection status " +
    '(`connectionStatus`, `needsReconnect`, `paused`) and whether it is the demo inbox. Call this first: other tools ' +
    'take an `inboxId` from here. Read-only.',
  input: z.strictObject({}),
  output: payload({ inboxes: z.array(INBOX_VIEW) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(_args, ctx) {
    const inboxes = await ctx.services.inboxes.list(ctx.principal);
    const connected = inboxes.filter((i) => i.connectionStatus === 'connected').length;
    return toolOk({
      inboxes,
      sayToHuman:
        inboxes.length === 0
          ? 'No inboxes are connected yet.'
          : `${String(inboxes.length)} inbox${inboxes.length === 1 ? '' : 'es'}, ${String(connected)} connected.`,
      ...(inboxes.some((i) => i.needsReconnect) && {
        agentOnly: ['Some inboxes need reconnecting: ask the person to reconnect them on the Inboxes page.'],
      }),
    });
  },
});
