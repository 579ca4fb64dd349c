import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/support/test-app.ts';
import { expectToolError, toolCaller } from '../../../test/support/tool-caller.ts';
import { createKeyViaPage, setUpOwner } from '../../../test/support/web-client.ts';
import type { App } from '../../app.ts';
import type { Logger } from '../../lib/logger.ts';

/** A logger that keeps what was logged at warning and error level. */
function recordingLogger(errors: string[]): Logger {
  const log: Logger = {
    error: (_o, m) => errors.push(m ?? ''),
    warn: (_o, m) => errors.push(`warn: ${m ?? ''}`),
    info: () => undefined,
    debug: () => undefined,
    child: () => log,
  };
  return log;
}

// Found by the HTTP fuzz (seed 444215): a tool call racing the removal of its inbox ended in the database's
// foreign-key error — `internal_error` to the agent and a stack trace in the log. The inbox is removed here exactly
// between the service's checks and its write.
describe('an inbox removed while a tool call runs', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
  });

  /** An owner's app that keeps what it logs at warning and error level, an agent's caller and the demo inbox. */
  async function owner() {
    const errors: string[] = [];
    app = await createTestApp({ overrides: { log: recordingLogger(errors) } });
    const call = toolCaller(app, await createKeyViaPage(await setUpOwner(app)));
    const inboxes = (await call('list_inboxes')).body['inboxes'] as { id: string }[];
    return { a: app, call, inboxId: inboxes[0]!.id, errors };
  }

  it('answers inbox_not_found, as for any removed inbox, and logs no failure', async () => {
    const { a, call, inboxId, errors } = await owner();
    const drafts = a.stores.drafts;
    const create = drafts.create.bind(drafts);
    drafts.create = async (d) => {
      await a.stores.inboxes.delete(d.accountId, d.inboxId);
      return create(d);
    };

    const r = await call('create_draft', { inboxId, to: 'sam@example.test', subject: 'Hi', text: 'Friday?' });
    expect(expectToolError(r, 'inbox_not_found')['message']).toMatch(
      /^The inbox was removed while this call ran\./,
    );
    expect(errors).toEqual([]);
  });

  it('a sync that finds its inbox removed ends as inbox_not_found, not as a mailbox failure', async () => {
    const { a, call, inboxId, errors } = await owner();
    const messages = a.stores.messages;
    const upsertMany = messages.upsertMany.bind(messages);
    let removed = false;
    messages.upsertMany = async (rows) => {
      const first = rows[0];
      if (first !== undefined && !removed) {
        removed = true;
        await a.stores.inboxes.delete(
          (await a.stores.inboxes.syncable(first.inboxId, new Date()))!.accountId,
          first.inboxId,
        );
      }
      return upsertMany(rows);
    };

    const r = await call('sync_inbox', { inboxId });
    expect(removed).toBe(true);
    expectToolError(r, 'inbox_not_found');
    expect(errors).toEqual([]);
  });
});
