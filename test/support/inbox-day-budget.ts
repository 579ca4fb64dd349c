import { expect } from 'vitest';
import type { App } from '../../src/app.ts';
import type { Config } from '../../src/config/config.ts';
import type { InboxId } from '../../src/core/inboxes/inbox.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { createTestApp, NO_RATE_LIMITS } from './test-app.ts';
import { agentOn, expectToolOk, toolCaller } from './tool-caller.ts';

type ToolCall = ReturnType<typeof toolCaller>;
import { createKeyViaPage, type WebClient } from './web-client.ts';

/** Two agents of one account on its demo inbox: on PostgreSQL each on a node of its own, sharing the database. */
export interface TwoAgentsOnAnInbox {
  readonly app: App;
  readonly web: WebClient;
  readonly first: ToolCall;
  /** The second agent, on the second node where there is a shared database. */
  readonly other: ToolCall;
  readonly inboxId: string;
  /**
   * Removes the inbox and checks that its day's count went with it (decision 0117): the counter is a row that names
   * the inbox, one before and none after.
   */
  readonly removeInboxAndItsCount: () => Promise<void>;
  /** Closes every node and starts the service again on the same database: the first agent's calls there. */
  readonly restart: () => Promise<ToolCall>;
}

/**
 * A per-inbox daily budget's rig (decisions 0126, 0146): the service with `rateLimits` over limits no test reaches,
 * its apps pushed on `apps` for the caller to close.
 */
export async function twoAgentsOnAnInbox(
  engine: 'sqlite' | 'postgres',
  rateLimits: Partial<Config['rateLimits']>,
  apps: App[],
): Promise<TwoAgentsOnAnInbox> {
  const pgUrl = engine === 'postgres' ? await freshPgDatabase() : undefined;
  const node = () =>
    createTestApp({
      config: { rateLimits: { ...NO_RATE_LIMITS, ...rateLimits } },
      ...(pgUrl !== undefined && { pgUrl }),
    });
  const app = await node();
  apps.push(app);
  const { web, key, call: first } = await agentOn(app);
  const otherKey = await createKeyViaPage(web, 'second agent');
  const second = engine === 'postgres' ? await node() : app;
  if (second !== app) apps.push(second);
  const other = toolCaller(second, otherKey);
  const inboxId = (expectToolOk(await first('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
  const counters = async () =>
    (
      await app.db.kysely
        .selectFrom('rate_limits' as never)
        .select('key' as never)
        .execute()
    ).filter((r) => (r as { key: string }).key.includes(inboxId)).length;
  return {
    app,
    web,
    first,
    other,
    inboxId,
    removeInboxAndItsCount: async () => {
      expect(await counters()).toBe(1);
      const { accountId } = (await app.stores.inboxes.syncable(inboxId as InboxId, new Date()))!;
      expect(await app.services.tools.inboxes.remove(accountId, inboxId)).toBe(true);
      expect(await counters()).toBe(0);
    },
    restart: async () => {
      for (const a of apps.splice(0)) await a.close();
      const again = await createTestApp({
        config: {
          dataDir: app.config.dataDir,
          database: app.config.database,
          rateLimits: app.config.rateLimits,
        },
        ...(pgUrl !== undefined && { pgUrl }),
      });
      apps.push(again);
      return toolCaller(again, key);
    },
  };
}
