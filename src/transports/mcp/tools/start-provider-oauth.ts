import * as z from 'zod';
import { ownedInbox } from '../tool-helpers.ts';
import { defineTool, type ToolDefinition } from '../tool-definition.ts';
import { toolError } from '../tool-error.ts';

function startOAuth(provider: 'google' | 'microsoft'): ToolDefinition {
  const brand = provider === 'google' ? 'Google' : 'Microsoft';
  return defineTool({
    name: `start_${provider}_oauth`,
    title: `Get a ${brand} sign-in link`,
    description: `For ${provider} inboxes: returns a ${brand} sign-in link for the person. Not available on this server yet: it answers not_supported.`,
    input: z.strictObject({ inboxId: z.string() }),
    // Not available yet: it always answers an error.
    output: z.never(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    async run({ inboxId }, ctx) {
      const r = await ownedInbox(ctx, inboxId);
      if (!r.ok) return r.error;
      return toolError('not_supported', `${brand} sign-in is not available on this server yet.`, {
        sayToHuman: `Connecting ${brand} mailboxes is not available here yet. An IMAP connection works in the meantime where ${brand} allows it.`,
      });
    },
  });
}

export const startGoogleOAuth = startOAuth('google');
export const startMicrosoftOAuth = startOAuth('microsoft');
