import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import type { InboxId } from '../../src/core/inboxes/inbox.ts';
import type { MessageId } from '../../src/core/messages/message.ts';
import { generateMessages, seedMaildir, startDovecot, type Dovecot } from '../rig/index.ts';
import { connectImapInbox } from '../support/imap-inbox.ts';
import { createTestApp, NO_RATE_LIMITS } from '../support/test-app.ts';
import { agentOn, expectToolOk, type toolCaller } from '../support/tool-caller.ts';

// In production a sync runs whenever IDLE reports a change, so it meets the agents' actions on the same folder:
// a sync that read a folder's changes while an action moved a message out of it (or back in) must neither drop the
// row the action re-points nor add a second one. Tried with the sync started at several moments after the action.
describe('sync racing an action on the same inbox (IMAP)', () => {
  const USER = 'racer';
  const PASSWORD = 'racer-imap-password';
  let dovecot: Dovecot;
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;

  beforeAll(async () => {
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    await seedMaildir({ maildir: dovecot.maildirOf(USER), messages: generateMessages(30, { seed: 30 }) });
    app = await createTestApp({ config: { rateLimits: NO_RATE_LIMITS } });
    ({ call } = await agentOn(app));
    inboxId = await connectImapInbox(app, call, { dovecot, user: USER, password: PASSWORD });
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await dovecot.stop();
  });

  const after = async <T>(ticks: number, f: () => Promise<T>) => {
    for (let i = 0; i < ticks; i++) await new Promise((r) => setImmediate(r));
    return f();
  };

  it('a message moved (and moved back) while a sync runs keeps its id, and nothing is indexed twice', async () => {
    const ids = (
      expectToolOk(await call('list_messages', { inboxId, limit: 30 }))['messages'] as { messageId: string }[]
    ).map((m) => m.messageId);
    const lost: string[] = [];
    for (const [i, ticks] of [0, 1, 2, 3, 5, 8, 12, 20, 0, 1, 2, 3, 5, 8, 12, 20].entries()) {
      const messageId = ids[i]!;
      const item = { inboxId, messageId };
      const [moved] = await Promise.all([
        call('act_on_messages', { action: 'archive', items: [item] }),
        after(ticks, () => call('sync_inbox', { inboxId })),
      ]);
      const undoId = expectToolOk(moved)['undoId'] as string;
      const there = await app.stores.messages.get(inboxId as InboxId, messageId as MessageId);
      if (there === undefined) lost.push(`archive ${String(i)} (sync ${String(ticks)} turns later)`);
      // And back: the undo moves it into the folder the sync is reading.
      await Promise.all([
        call('undo_action', { undoId }),
        after(ticks, () => call('sync_inbox', { inboxId })),
      ]);
      const back = await app.stores.messages.get(inboxId as InboxId, messageId as MessageId);
      if (back === undefined) lost.push(`undo ${String(i)} (sync ${String(ticks)} turns later)`);
    }
    expect(lost).toEqual([]);
    // And nothing doubled: the inbox folder holds what Dovecot holds.
    const inbox = (await app.stores.folders.list(inboxId as InboxId)).find((f) => f.canonical === 'inbox')!;
    const { total } = await app.stores.messages.list(inboxId as InboxId, {
      folderId: inbox.id,
      limit: 1,
      offset: 0,
    });
    expect(total).toBe(30);
  });
});
