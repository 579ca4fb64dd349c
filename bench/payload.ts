import { createTestApp } from '../test/support/test-app.ts';
import { agentOn, unmarked } from '../test/support/tool-caller.ts';

/**
 * What marking sender-written text (decision 0017) costs in bytes: `list_messages` with 50 previews of the demo
 * inbox, as sent (marks and the `untrusted` notice) against the same result without them.
 */
export async function payloadSize(): Promise<{ previews: number; markedBytes: number; plainBytes: number }> {
  const app = await createTestApp({ config: { syncWindow: 60 } });
  try {
    const { call } = await agentOn(app);
    const inboxes = (await call('list_inboxes')).body['inboxes'] as { id: string; isDemo: boolean }[];
    const inboxId = inboxes.find((i) => i.isDemo)?.id ?? '';
    await call('sync_inbox', { inboxId });
    const r = await call('list_messages', { inboxId, limit: 50 });
    const previews = (r.raw['messages'] as unknown[]).length;
    return {
      previews,
      markedBytes: Buffer.byteLength(JSON.stringify(r.raw)),
      plainBytes: Buffer.byteLength(JSON.stringify(unmarked(r.raw))),
    };
  } finally {
    await app.close();
  }
}
