import * as z from 'zod';
import { inboxView } from '../../../core/inboxes/inbox-view.ts';
import { fromInboxError } from '../tool-helpers.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';

export const getConnectionStatus = defineTool({
  name: 'get_connection_status',
  title: 'Check an inbox connection',
  description:
    'Says whether an inbox can sync now: connectionStatus (connected, not_connected, needs_reconnect, paused), needsReconnect, and the last error if any.',
  input: z.strictObject({ inboxId: z.string() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ inboxId }, ctx) {
    const r = await ctx.services.inboxes.owned(ctx.principal.accountId, inboxId);
    if (!r.ok) return fromInboxError(r.error);
    const v = inboxView(r.value);
    const canSyncNow = v.connectionStatus === 'connected' || (r.value.isDemo && !r.value.paused);
    return toolOk({
      ...v,
      canSyncNow,
      lastError: r.value.lastError,
      sayToHuman: canSyncNow
        ? `${r.value.label} is connected.`
        : v.connectionStatus === 'paused'
          ? `${r.value.label} is paused; resume it on the Inboxes page.`
          : v.needsReconnect
            ? `${r.value.label} needs to be reconnected${r.value.lastError === null ? '' : `: ${r.value.lastError}`}.`
            : `${r.value.label} is not connected yet.`,
    });
  },
});
