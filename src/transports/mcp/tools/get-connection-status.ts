import * as z from 'zod';
import { inboxView } from '../../../core/inboxes/inbox-view.ts';
import { ownedInbox } from '../tool-helpers.ts';
import { INBOX_VIEW, payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';

export const getConnectionStatus = defineTool({
  name: 'get_connection_status',
  needs: 'read',
  title: 'Check an inbox connection',
  description:
    'Says whether an inbox can sync now: connectionStatus (connected, not_connected, needs_reconnect, paused), needsReconnect, and the last error if any.',
  input: z.strictObject({ inboxId: z.string() }),
  output: payload({ ...INBOX_VIEW.shape, canSyncNow: z.boolean(), lastError: z.string().nullable() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ inboxId }, ctx) {
    const r = await ownedInbox(ctx, inboxId);
    if (!r.ok) return r.error;
    const inbox = r.inbox;
    const v = inboxView(inbox);
    const canSyncNow = v.connectionStatus === 'connected' || (inbox.isDemo && !inbox.paused);
    const connect =
      inbox.provider === 'google'
        ? 'start_google_oauth (a fresh Google sign-in link)'
        : inbox.provider === 'microsoft'
          ? 'start_microsoft_oauth'
          : 'start_imap_secret_capture (a fresh password link)';
    const fix =
      !canSyncNow && v.connectionStatus !== 'paused'
        ? [`To connect it, call ${connect} and give the person the link.`]
        : undefined;
    return toolOk({
      ...(fix !== undefined && { agentOnly: fix }),
      ...v,
      canSyncNow,
      lastError: inbox.lastError,
      sayToHuman: canSyncNow
        ? `${inbox.label} is connected.`
        : v.connectionStatus === 'paused'
          ? `${inbox.label} is paused; resume it on the Inboxes page.`
          : v.needsReconnect
            ? `${inbox.label} needs to be reconnected${inbox.lastError === null ? '' : `: ${inbox.lastError}`}.`
            : `${inbox.label} is not connected yet.`,
    });
  },
});
