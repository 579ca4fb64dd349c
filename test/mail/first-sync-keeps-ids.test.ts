import { describe, expect, it } from 'vitest';
import { dovecotBackend, gmailBackend, graphBackend, type Backend } from '../support/mail-backends.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0046: a folder's first sync reads its window afresh, and a row an action already put there (the agent
// archived a message, then asked for Archive to be synced) names the same message: it keeps its id. The sync used to
// index it again under a new id, so the id the agent held stopped working and the message counted as new mail.
describe.each([
  ['Dovecot', dovecotBackend],
  ['Gmail', () => gmailBackend()],
  ['Microsoft 365', () => graphBackend()],
])('the first sync of a folder mail was moved into (%s)', (_, start) => {
  it('keeps the ids of the messages already there, and counts none of them as new', async () => {
    const be: Backend = await start();
    try {
      const { call } = be.agent;
      const inboxId = be.inboxId;
      expectToolOk(await call('sync_inbox', { inboxId }));
      const listed = expectToolOk(await call('list_messages', { inboxId, folder: 'inbox', limit: 3 }))[
        'messages'
      ] as { messageId: string }[];
      const items = listed.slice(0, 2).map((m) => ({ inboxId, messageId: m.messageId }));
      const acted = expectToolOk(await call('act_on_messages', { action: 'archive', items }));
      expect(acted['changed']).toHaveLength(2);

      const folders = expectToolOk(await call('list_folders', { inboxId }))['folders'] as {
        id: string;
        canonical: string | null;
      }[];
      const both = folders
        .filter((f) => f.canonical === 'inbox' || f.canonical === 'archive')
        .map((f) => f.id);
      const synced = expectToolOk(await call('sync_inbox', { inboxId, folders: both }));
      const archive = (synced['folders'] as { name: string; added: number; removed: number }[]).find(
        (f) => f.name === 'Archive',
      );
      expect(archive).toMatchObject({ added: 0, removed: 0 });

      const inArchive = expectToolOk(await call('list_messages', { inboxId, folder: 'archive', limit: 50 }));
      expect((inArchive['messages'] as { messageId: string }[]).map((m) => m.messageId).sort()).toEqual(
        items.map((i) => i.messageId).sort(),
      );
      for (const i of items) expectToolOk(await call('get_message', i));
      expectToolOk(await call('undo_action', { undoId: acted['undoId'] }));
      const back = expectToolOk(await call('list_messages', { inboxId, folder: 'inbox', limit: 3 }));
      expect((back['messages'] as { messageId: string }[]).map((m) => m.messageId)).toEqual(
        listed.map((m) => m.messageId),
      );
    } finally {
      await be.close();
    }
  }, 120_000);
});
