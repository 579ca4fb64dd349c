import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../app.ts';
import type { InboxId } from '../../../core/inboxes/inbox.ts';
import { agentOn, type toolCaller } from '../../../../test/support/tool-caller.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import { wholeAccount } from '../../../core/auth/inbox-reach.ts';

// The read tools end to end on the demo inbox (the same sync engine and index as a real mailbox).
describe('reading the demo inbox through MCP tools', () => {
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;

  beforeAll(async () => {
    app = await createTestApp({ config: { syncWindow: 40 } });
    ({ call } = await agentOn(app));
    const list = await call('list_inboxes');
    inboxId = (list.body['inboxes'] as { id: string; isDemo: boolean }[]).find((i) => i.isDemo)!.id;
  });
  afterAll(async () => {
    await app.close();
  });

  it('sync_inbox pulls the inbox window; list_folders shows canonical folders and the selection', async () => {
    const sync = await call('sync_inbox', { inboxId });
    expect(sync.isError).toBe(false);
    expect(sync.body).toMatchObject({ isDemo: true, folders: [{ name: 'Inbox', added: 40, reset: true }] });
    const again = await call('sync_inbox', { inboxId });
    expect(again.body).toMatchObject({ folders: [{ added: 0, reset: false }] });
    const folders = (await call('list_folders', { inboxId })).body['folders'] as {
      canonical: string;
      selected: boolean;
    }[];
    expect(folders.map((f) => f.canonical).sort()).toEqual([
      'archive',
      'drafts',
      'inbox',
      'screened',
      'sent',
      'spam',
      'trash',
    ]);
    expect(folders.filter((f) => f.selected).map((f) => f.canonical)).toEqual(['inbox']);
  });

  it.each([
    [0, 1],
    [1, 1],
    [200, 40],
    [201, 40],
    [undefined, 40],
    [7.9, 7],
  ])('list_messages clamps limit %s (window of 40) → %s messages', async (limit, count) => {
    const r = await call('list_messages', { inboxId, ...(limit !== undefined && { limit }) });
    expect((r.body['messages'] as unknown[]).length).toBe(count);
    expect(r.body['total']).toBe(40);
  });

  it('pages with nextOffset, newest first, without gaps or duplicates; previews carry no body', async () => {
    const seen: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const r = await call('list_messages', { inboxId, limit: 15, offset });
      const page = r.body['messages'] as { messageId: string; date: string; bodyUntrusted?: unknown }[];
      seen.push(...page.map((m) => m.messageId));
      expect(page.every((m) => m.bodyUntrusted === undefined)).toBe(true);
      offset = r.body['nextOffset'] as number | null;
    }
    expect(seen).toHaveLength(40);
    expect(new Set(seen).size).toBe(40);
  });

  it('filters by unreadOnly and by a substring within the window', async () => {
    const unread = (await call('list_messages', { inboxId, unreadOnly: true, limit: 200 })).body[
      'messages'
    ] as { unread: boolean }[];
    expect(unread.length).toBeGreaterThan(0);
    expect(unread.every((m) => m.unread)).toBe(true);
    const all = (await call('list_messages', { inboxId, limit: 200 })).body['messages'] as {
      subject: string;
    }[];
    const word = all[0]!.subject.split(/\s+/).find((w) => w.length > 4)!;
    const found = (await call('list_messages', { inboxId, query: word.toUpperCase(), limit: 200 })).body[
      'messages'
    ] as { subject: string; snippet: string; from: { name: string; address: string } }[];
    expect(found.length).toBeGreaterThan(0);
    for (const m of found)
      expect(`${m.subject} ${m.snippet} ${m.from.name} ${m.from.address}`.toLowerCase()).toContain(
        word.toLowerCase(),
      );
  });

  it('an unknown folder or one not selected is a clear error', async () => {
    expect((await call('list_messages', { inboxId, folder: 'Nope' })).body).toMatchObject({
      error: 'invalid_arguments',
    });
    expect((await call('list_messages', { inboxId, folder: 'archive' })).body['message']).toContain(
      'not synced',
    );
  });

  it('get_message fences the body with nonce markers; a prompt injection stays data', async () => {
    const hit = await call('search_mailbox', { inboxId, query: 'ignore previous instructions' });
    const messages = hit.body['messages'] as { messageId: string }[];
    expect(messages.length).toBeGreaterThan(0);
    const m = await call('get_message', { inboxId, messageId: messages[0]!.messageId });
    const body = m.body['bodyUntrusted'] as string;
    const nonce = /<<<UNTRUSTED_EMAIL_BODY nonce="([a-z0-9]+)">>>/.exec(body)?.[1];
    expect(nonce).toBeDefined();
    expect(body.trimEnd().endsWith(`<<<END_UNTRUSTED_EMAIL_BODY nonce="${nonce!}">>>`)).toBe(true);
    expect(body.toLowerCase()).toContain('ignore previous instructions');
    expect(body.match(/<<<(END_)?UNTRUSTED_EMAIL_BODY/g)).toHaveLength(2);
    const again = await call('get_message', { inboxId, messageId: messages[0]!.messageId });
    expect(again.body['bodyUntrusted']).not.toContain(nonce!); // a fresh nonce per call
  });

  it('search_mailbox validates the query length and clamps the limit', async () => {
    expect((await call('search_mailbox', { inboxId, query: '' })).body).toMatchObject({
      error: 'invalid_arguments',
    });
    expect((await call('search_mailbox', { inboxId, query: 'x'.repeat(201) })).body).toMatchObject({
      error: 'invalid_arguments',
    });
    expect((await call('search_mailbox', { inboxId, query: 'x'.repeat(200) })).isError).toBe(false);
    const r1 = await call('search_mailbox', { inboxId, query: 'e', limit: 0 });
    expect((r1.body['messages'] as unknown[]).length).toBe(1);
    const r51 = await call('search_mailbox', { inboxId, query: 'e', limit: 51 });
    expect((r51.body['messages'] as unknown[]).length).toBe(50);
    expect(r51.body['searched']).not.toContain('spam');
    expect(r51.body['searched']).not.toContain('trash');
  });

  it('load_older_messages extends the window; list_messages then shows more', async () => {
    const ids = async () =>
      new Set(
        (
          (await call('list_messages', { inboxId, limit: 200 })).body['messages'] as { messageId: string }[]
        ).map((m) => m.messageId),
      );
    const before = await ids();
    const r = await call('load_older_messages', { inboxId, folder: 'inbox', count: 0 });
    const r2 = await call('load_older_messages', { inboxId, folder: 'inbox', count: 25 });
    const loaded = [
      ...(r.body['loaded'] as { messageId: string }[]),
      ...(r2.body['loaded'] as { messageId: string }[]),
    ].map((m) => m.messageId);
    expect(loaded).toHaveLength(26);
    expect(new Set(loaded).size).toBe(26); // the second call continues below the first, no overlap
    const after = await ids();
    expect(after).toEqual(new Set([...before, ...loaded]));
    // The next incremental sync keeps the extended window.
    await call('sync_inbox', { inboxId });
    expect(await ids()).toEqual(after);
    expect((await call('load_older_messages', { inboxId, folder: 'archive' })).body).toMatchObject({
      error: 'invalid_arguments',
    });
  });

  it('load_older_messages that a sync overtook still moves the window down: the next call goes on below it', async () => {
    // The call reads the inbox with its folders, loads the page, then lowers the window by compare-and-set on the
    // version it read. A sync that wrote the folder's state in between (IDLE's, or another node's) made that write
    // fail unnoticed: the next call loaded the same page again, and an agent paging to the end could go round.
    const { accountId } = (await app.stores.inboxes.syncable(inboxId as InboxId, new Date()))!;
    const place = await app.services.tools.inboxes.usableWithFolders(wholeAccount(accountId), inboxId);
    if (!place.ok) throw new Error(place.error.code);
    const folder = place.value.folders.find((f) => f.canonical === 'inbox')!;
    expect(await app.stores.folders.advanceSync(folder.id, folder.sync.version, folder.sync)).toBe(true);
    const first = await app.services.tools.read.loadOlder(place.value, 'inbox', 10);
    if (!first.ok) throw new Error(first.error.code);
    const second = await call('load_older_messages', { inboxId, folder: 'inbox', count: 10 });
    const ids = [...first.value.loaded, ...(second.body['loaded'] as { messageId: string }[])].map(
      (m) => m.messageId,
    );
    expect(new Set(ids).size).toBe(20);
  });

  it('get_attachment returns a short-lived link that downloads the exact bytes with safe headers', async () => {
    await call('load_older_messages', { inboxId, folder: 'inbox', count: 200 });
    const all = (await call('list_messages', { inboxId, limit: 200 })).body['messages'] as {
      messageId: string;
      hasAttachments: boolean;
    }[];
    const withFile = all.find((m) => m.hasAttachments)!;
    const msg = await call('get_message', { inboxId, messageId: withFile.messageId });
    const part = (msg.body['attachments'] as { partId: string; filename: string; size: number }[])[0]!;
    const link = await call('get_attachment', {
      inboxId,
      messageId: withFile.messageId,
      partId: part.partId,
    });
    const url = new URL(link.body['url'] as string);
    const res = await app.fetch(new Request(url));
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBe(part.size);
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="[^"\r\n]*"; filename\*=UTF-8''/,
    );
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await app.fetch(new Request(new URL('/attachments/att_' + 'x'.repeat(40), url)))).status).toBe(
      410,
    );
    expect(
      (await call('get_attachment', { inboxId, messageId: withFile.messageId, partId: '99' })).body,
    ).toMatchObject({ error: 'invalid_arguments' });
  });

  it('list_labels lists the labels in use', async () => {
    const labels = (await call('list_labels', { inboxId })).body['labels'] as { id: string }[];
    expect(labels.length).toBeGreaterThan(0);
  });

  it('unknown and foreign ids behave the same: inbox_not_found / message_not_found', async () => {
    expect((await call('list_messages', { inboxId: 'inbox_aaaaaaaaaaaaaaaaaaaa' })).body).toMatchObject({
      error: 'inbox_not_found',
    });
    expect(
      (await call('get_message', { inboxId, messageId: 'msg_aaaaaaaaaaaaaaaaaaaa' })).body,
    ).toMatchObject({ error: 'message_not_found' });
    expect((await call('get_message', { inboxId, messageId: 'not-an-id' })).body).toMatchObject({
      error: 'message_not_found',
    });
  });
});
