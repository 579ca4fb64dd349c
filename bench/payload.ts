import type { InboxReach } from '../src/core/auth/inbox-reach.ts';
import type { InboxId } from '../src/core/inboxes/inbox.ts';
import type { AuditLog } from '../src/core/audit/audit-log.ts';
import type { Powers } from '../src/core/auth/agent-powers.ts';
import { ToolRegistry } from '../src/transports/mcp/tool-registry.ts';
import { ALL_TOOLS } from '../src/transports/mcp/tools/index.ts';
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

/**
 * What a host holds of the tool list for one agent, by what the person lets it do and where (decisions 0141, 0142): how many tools,
 * the bytes a model is shown (name, title, description, input schema), and the whole `tools/list` as sent (with the
 * output schemas, which clients use to check results).
 */
export function toolListSizes(): { label: string; tools: number; modelBytes: number; sentBytes: number }[] {
  const registry = new ToolRegistry(ALL_TOOLS, {
    audit: { record: () => Promise.resolve() } as unknown as AuditLog,
    maxResultChars: 100_000,
  });
  const some: InboxReach = new Set(['inbox_aaaaaaaaaaaaaaaaaaaa' as InboxId]);
  const sets: [string, Powers, InboxReach][] = [
    ['every power (the default)', null, null],
    ['every power, some inboxes (0142, 0143)', null, some],
    ['every power but settings', new Set(['tidy', 'screen', 'draft', 'unsubscribe']), null],
    ['tidy and drafts', new Set(['tidy', 'draft']), null],
    ['drafts', new Set(['draft']), null],
    ['reading only', new Set(), null],
  ];
  return sets.map(([label, powers, inboxes]) => {
    const { tools, json } = registry.listedFor({ powers, inboxes });
    const shown = tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
    }));
    return {
      label,
      tools: tools.length,
      modelBytes: Buffer.byteLength(JSON.stringify(shown)),
      sentBytes: Buffer.byteLength(json),
    };
  });
}
