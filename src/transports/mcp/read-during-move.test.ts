import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/support/test-app.ts';
import { expectToolError, toolCaller } from '../../../test/support/tool-caller.ts';
import { createKeyViaPage, setUpOwner } from '../../../test/support/web-client.ts';
import { DemoSession } from '../../adapters/mail/demo/demo-session.ts';
import type { App } from '../../app.ts';

/** Lets everything already started run as far as it can (a few rounds of the event loop). */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
}

// A read that finds a message gone at the provider drops its row from the index. An action moving that message has
// moved it at the provider and not yet re-pointed its row: removed then, the row — and the id agents hold — was
// lost, and the action's re-pointing found nothing to update (decision 0040).
describe('a message read while an action moves it', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
  });

  /** An app, an agent's caller and the demo inbox, synced. */
  async function demoAgent() {
    app = await createTestApp();
    const a = app;
    const call = toolCaller(a, await createKeyViaPage(await setUpOwner(a)));
    const inboxId = ((await call('list_inboxes')).body['inboxes'] as { id: string }[])[0]!.id;
    expect((await call('sync_inbox', { inboxId })).isError).toBe(false);
    return { a, call, inboxId };
  }

  it('keeps its row and its id: the read’s removal waits for the action and then finds nothing at the old place', async () => {
    const { a, call, inboxId } = await demoAgent();
    const messageId = (
      (await call('list_messages', { inboxId, limit: 1 })).body['messages'] as { messageId: string }[]
    )[0]!.messageId;

    // Between the provider's move and the row's re-pointing, an agent reads the message.
    const messages = a.stores.messages;
    const relocate = messages.relocate.bind(messages);
    let read: ReturnType<typeof call> | undefined;
    messages.relocate = async (...args) => {
      read ??= call('get_message', { inboxId, messageId });
      await Promise.race([read, settle()]);
      return relocate(...args);
    };
    const act = await call('act_on_messages', { action: 'archive', items: [{ inboxId, messageId }] });
    expect(act.isError, JSON.stringify(act.body)).toBe(false);
    expect(read).toBeDefined();
    // The read looked where the message was: gone from there, which it says.
    expectToolError(await read!, 'message_not_found');

    // The message is where the action put it, under the same id.
    messages.relocate = relocate;
    const again = await call('get_message', { inboxId, messageId });
    expect(again.isError, JSON.stringify(again.body)).toBe(false);
    expect(again.body['folder']).toBe('archive');
  });

  it('a search that read the message before an action moved it does not index it again where it was', async () => {
    const { call, inboxId } = await demoAgent();
    type Row = { messageId: string; subject: string; folder: string };
    const inboxPage = async () => {
      const body = (await call('list_messages', { inboxId, folder: 'inbox', limit: 50 })).body;
      return { rows: body['messages'] as Row[], total: body['total'] as number };
    };
    const before = await inboxPage();
    const target = before.rows[0]!;

    // The provider answers the search; before the answer is indexed, an agent archives the message it found.
    const proto = DemoSession.prototype;
    const original = Object.getOwnPropertyDescriptor(proto, 'search')!;
    const search = original.value as DemoSession['search'];
    let archived = false;
    proto.search = async function (this: DemoSession, ...args) {
      const hits = await search.apply(this, args);
      if (!archived) {
        archived = true;
        const act = await call('act_on_messages', {
          action: 'archive',
          items: [{ inboxId, messageId: target.messageId }],
        });
        expect(act.isError, JSON.stringify(act.body)).toBe(false);
      }
      return hits;
    };
    try {
      const found = await call('search_mailbox', { inboxId, query: target.subject, folder: 'inbox' });
      expect(found.isError, JSON.stringify(found.body)).toBe(false);
      expect(archived).toBe(true);
      // Not offered from the inbox, where it no longer is …
      expect((found.body['messages'] as Row[]).map((m) => m.subject)).not.toContain(target.subject);
    } finally {
      Object.defineProperty(proto, 'search', original);
    }
    // … nor listed there again under a new id: the inbox lost exactly that message, and the id reads it in Archive.
    const after = await inboxPage();
    expect(after.total).toBe(before.total - 1);
    expect(after.rows.map((m) => m.messageId)).not.toContain(target.messageId);
    expect((await call('get_message', { inboxId, messageId: target.messageId })).body['folder']).toBe(
      'archive',
    );
  });
});
