import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildMessage } from './message-factory.ts';
import { startGraphStub, type GraphStub } from './graph-stub.ts';

// The Graph stub checked against Microsoft's documented behaviour (learn.microsoft.com, Graph v1.0 message and
// mailFolder resources), with plain fetch: it must never drift into agreeing with our adapter instead.
describe('Graph stub behaves as Graph mail is documented', () => {
  let g: GraphStub;
  const H = { authorization: 'Bearer token', 'content-type': 'application/json' };
  const IMMUTABLE = { ...H, prefer: 'IdType="ImmutableId"' };
  const get = async (path: string, headers: Record<string, string> = H) => {
    const res = await fetch(path.startsWith('http') ? path : `${g.url}/v1.0/me${path}`, { headers });
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> };
  };
  const post = async (path: string, body: unknown, headers: Record<string, string> = H) => {
    const res = await fetch(`${g.url}/v1.0/me${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json().catch(() => null)) as Record<string, unknown> | null,
    };
  };
  const mail = (n: number, extra: Record<string, unknown> = {}) =>
    buildMessage({
      from: { name: 'Ada', address: 'ada@example.org' },
      to: [{ name: 'Pat', address: 'pat@contoso.test' }],
      subject: `Message ${String(n)}`,
      date: new Date(Date.UTC(2026, 0, 1, n)),
      messageId: `<stub-${String(n)}@example.org>`,
      text: `Hello ${String(n)}\n`,
      ...extra,
    });

  beforeEach(async () => {
    g = await startGraphStub();
  });
  afterEach(() => g.close());

  it('refuses a request without a bearer token (401 InvalidAuthenticationToken)', async () => {
    const res = await fetch(`${g.url}/v1.0/me/mailFolders`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('InvalidAuthenticationToken');
  });

  it('resolves well-known folder names, with their item counts, and creates folders once (409 ErrorFolderExists)', async () => {
    await g.deliver(mail(1));
    const inbox = await get('/mailFolders/inbox');
    expect(inbox.body['displayName']).toBe('Inbox');
    expect(inbox.body['id']).not.toBe('inbox');
    expect(inbox.body['totalItemCount']).toBe(1);
    expect((await post('/mailFolders', { displayName: 'Screened' })).status).toBe(201);
    const again = await post('/mailFolders', { displayName: 'Screened' });
    expect(again.status).toBe(409);
    expect((again.body as { error: { code: string } }).error.code).toBe('ErrorFolderExists');
  });

  it('changes an id on move unless ImmutableId is asked for; the old id is gone', async () => {
    const id = await g.deliver(mail(1));
    const archive = g.folderId('archive')!;
    const moved = await post(`/messages/${id}/move`, { destinationId: archive });
    expect(moved.status).toBe(201);
    expect(moved.body?.['id']).not.toBe(id);
    expect((await get(`/messages/${id}`)).status).toBe(404);
    const kept = await post(
      `/messages/${String(moved.body?.['id'])}/move`,
      { destinationId: 'inbox' },
      IMMUTABLE,
    );
    expect(kept.body?.['id']).toBe(moved.body?.['id']);
  });

  it('pages a first delta round, then reports only changes, moved-away mail as @removed', async () => {
    for (let n = 1; n <= 5; n++) await g.deliver(mail(n));
    const pageHeaders = { ...IMMUTABLE, prefer: 'IdType="ImmutableId", odata.maxpagesize=2' };
    let next: string | undefined = `${g.url}/v1.0/me/mailFolders/inbox/messages/delta`;
    const seen: string[] = [];
    let deltaLink = '';
    while (next !== undefined) {
      const page = await get(next, pageHeaders);
      seen.push(...(page.body['value'] as { id: string }[]).map((m) => m.id));
      next = page.body['@odata.nextLink'] as string | undefined;
      deltaLink = (page.body['@odata.deltaLink'] as string | undefined) ?? deltaLink;
    }
    expect(new Set(seen).size).toBe(5);
    expect(deltaLink).toContain('$deltatoken=');
    expect((await get(deltaLink, pageHeaders)).body['value']).toEqual([]);

    const [first, second] = seen;
    await fetch(`${g.url}/v1.0/me/messages/${first!}`, {
      method: 'PATCH',
      headers: IMMUTABLE,
      body: JSON.stringify({ isRead: true, flag: { flagStatus: 'flagged' } }),
    });
    await post(`/messages/${second!}/move`, { destinationId: 'deleteditems' }, IMMUTABLE);
    const fresh = await g.deliver(mail(9));
    const changes = (await get(deltaLink, IMMUTABLE)).body;
    const value = changes['value'] as { id: string; isRead?: boolean; '@removed'?: unknown }[];
    expect(value.find((m) => m.id === first)).toMatchObject({
      isRead: true,
      flag: { flagStatus: 'flagged' },
    });
    expect(value.find((m) => m.id === second)).toMatchObject({ '@removed': { reason: 'changed' } });
    expect(value.some((m) => m.id === fresh)).toBe(true);
    expect(changes['@odata.deltaLink']).toBeDefined();
  });

  it('answers $deltatoken=latest with no items, and 410 SyncStateNotFound for an expired token', async () => {
    await g.deliver(mail(1));
    const latest = await get('/mailFolders/inbox/messages/delta?$deltatoken=latest');
    expect(latest.body['value']).toEqual([]);
    const link = latest.body['@odata.deltaLink'] as string;
    g.expireDeltaTokens();
    const stale = await get(link);
    expect(stale.status).toBe(410);
    expect((stale.body as { error: { code: string } }).error.code).toBe('SyncStateNotFound');
  });

  it('serves MIME by $value, headers only when selected, attachments with contentBytes', async () => {
    const raw = mail(1, {
      list: { id: 'news.example.com', unsubscribeHttps: 'https://example.com/u', oneClick: true },
      attachments: [{ filename: 'a.csv', contentType: 'text/csv', content: Buffer.from('1,2\n') }],
    });
    const id = await g.deliver(raw);
    const value = await fetch(`${g.url}/v1.0/me/messages/${id}/$value`, { headers: H });
    expect(Buffer.from(await value.arrayBuffer()).equals(raw)).toBe(true);
    expect((await get(`/messages/${id}`)).body['internetMessageHeaders']).toBeUndefined();
    const headers = (await get(`/messages/${id}?$select=internetMessageHeaders`)).body[
      'internetMessageHeaders'
    ] as {
      name: string;
    }[];
    expect(headers.map((h) => h.name.toLowerCase())).toContain('list-unsubscribe');
    const atts = (await get(`/messages/${id}/attachments`)).body['value'] as { id: string; name: string }[];
    expect(atts.map((a) => a.name)).toEqual(['a.csv']);
    const one = await get(`/messages/${id}/attachments/${atts[0]!.id}`);
    expect(Buffer.from(one.body['contentBytes'] as string, 'base64').toString()).toBe('1,2\n');
  });

  it('sends a draft with 202 and files it in Sent Items; a sent message cannot be sent again', async () => {
    const parent = await g.deliver(mail(1));
    const reply = await post(`/messages/${parent}/createReply`, { comment: 'Sounds good' }, IMMUTABLE);
    expect(reply.status).toBe(201);
    expect(reply.body?.['isDraft']).toBe(true);
    const id = String(reply.body?.['id']);
    const sent = await fetch(`${g.url}/v1.0/me/messages/${id}/send`, { method: 'POST', headers: IMMUTABLE });
    expect(sent.status).toBe(202);
    expect(g.messagesIn('sentitems').map((m) => m.id)).toEqual([id]);
    const again = await fetch(`${g.url}/v1.0/me/messages/${id}/send`, { method: 'POST', headers: IMMUTABLE });
    expect(again.status).toBe(400);
  });

  it('DELETE moves to Deleted Items; permanentDelete removes', async () => {
    const id = await g.deliver(mail(1));
    await fetch(`${g.url}/v1.0/me/messages/${id}`, { method: 'DELETE', headers: IMMUTABLE });
    expect(g.messagesIn('deleteditems')).toHaveLength(1);
    await fetch(`${g.url}/v1.0/me/messages/${id}/permanentDelete`, { method: 'POST', headers: IMMUTABLE });
    expect(g.messagesIn('deleteditems')).toHaveLength(0);
  });

  it('deletes a folder a client made, its messages to Deleted Items; a well-known folder is refused', async () => {
    const made = await post('/mailFolders', { displayName: 'Screened' });
    const folder = String(made.body?.['id']);
    await g.deliver(mail(1), { folder });
    const del = await fetch(`${g.url}/v1.0/me/mailFolders/${folder}`, { method: 'DELETE', headers: H });
    expect(del.status).toBe(204);
    expect(g.folderName(folder)).toBeUndefined();
    expect(g.messagesIn('deleteditems')).toHaveLength(1);
    expect((await get(`/mailFolders/${folder}`)).status).toBe(404);
    const inbox = await fetch(`${g.url}/v1.0/me/mailFolders/inbox`, { method: 'DELETE', headers: H });
    expect(inbox.status).toBe(403);
  });

  it('searches newest first, leaves out Deleted Items and Junk, and refuses $orderby with $search', async () => {
    await g.deliver(mail(1, { subject: 'kumquat one' }));
    await g.deliver(mail(2, { subject: 'kumquat two' }));
    await g.deliver(mail(3, { subject: 'kumquat junk' }), { folder: 'junkemail' });
    const found = (await get('/messages?$search="kumquat"')).body['value'] as { subject: string }[];
    expect(found.map((m) => m.subject)).toEqual(['kumquat two', 'kumquat one']);
    expect((await get('/messages?$search="kumquat"&$orderby=receivedDateTime desc')).status).toBe(400);
  });

  it('answers injected throttling with 429 and Retry-After', async () => {
    g.failNext(1, { status: 429, retryAfter: 2 });
    const res = await fetch(`${g.url}/v1.0/me/mailFolders`, { headers: H });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect((await fetch(`${g.url}/v1.0/me/mailFolders`, { headers: H })).status).toBe(200);
  });
});
