import * as z from 'zod';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';

export const setSendEnabled = defineTool({
  name: 'set_send_enabled',
  needs: 'setup',
  spansInboxes: true,
  title: 'Turn sending from chat on or off',
  description:
    'enabled: true lets send_draft send drafts the person approved in chat; false blocks all sending. Off by default. Use only ' +
    'when the person asks, with humanConfirmedInChat: true after they confirmed in chat.',
  input: z.strictObject({ enabled: z.boolean(), humanConfirmedInChat: z.literal(true) }),
  output: payload({ sendEnabled: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ enabled }, ctx) {
    await ctx.services.sending.setEnabled(ctx.principal.accountId, enabled);
    return toolOk({
      sendEnabled: enabled,
      sayToHuman: enabled
        ? 'Sending is on: I can send a draft after you approve it here, and never without.'
        : 'Sending is off: I can write drafts, but not send them.',
      ...(enabled && {
        agentOnly: ['Drafts created before this have no approval; create the draft again to get one.'],
      }),
    });
  },
});
