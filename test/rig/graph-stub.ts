import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { getRequestListener } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import PostalMime from 'postal-mime';

/**
 * Microsoft Graph mail for tests, written from Microsoft's documentation (no npm emulator covers it: see
 * reference/wave2-research.md §2.3) and checked by its own tests (graph-stub.test.ts), never by our adapter:
 * - ids are opaque and change on a move unless the request says `Prefer: IdType="ImmutableId"` (the old id then
 *   answers 404 ErrorItemNotFound);
 * - `messages/delta` per folder: a first round lists the folder in pages (`Prefer: odata.maxpagesize`,
 *   `@odata.nextLink`), the last page carries `@odata.deltaLink`; later rounds return what changed, messages that
 *   left as `{ id, "@removed": { reason } }`; `$deltatoken=latest` answers no items and a fresh link; a token that
 *   is too old answers 410 `SyncStateNotFound`;
 * - `$value` gives the MIME; `internetMessageHeaders` only when `$select`ed; `send` answers 202 and files the
 *   message in Sent Items; `DELETE` moves to Deleted Items, `permanentDelete` removes; deleting a folder a client
 *   made moves its messages to Deleted Items;
 * - `$search` matches subject, body and sender, newest first, at most 1,000 results and no `$orderby`/`$filter`;
 * - a missing bearer answers 401; injected faults answer 429/503 with `Retry-After`.
 */
export interface GraphStub {
  /** `https://graph.microsoft.com` stands here: requests go to `${url}/v1.0/me/...`. */
  readonly url: string;
  readonly user: string;
  /** Delivers a raw message to a folder (by id or well-known name), as the mail server would. */
  deliver(
    raw: Buffer,
    opts?: { folder?: string; isRead?: boolean; flagged?: boolean; received?: Date; categories?: string[] },
  ): Promise<string>;
  /** Delta tokens issued before now answer 410 from here on. */
  expireDeltaTokens(): void;
  /** The next `count` requests (matching `path`) answer `status` with Graph's error `code` (default by status). */
  /** The next `count` requests (to `path`, by `method`, when given) answer `status` with the error `code`. */
  failNext(
    count: number,
    fault: { status: number; retryAfter?: number; path?: RegExp; method?: string; code?: string },
  ): void;
  clearFaults(): void;
  /** The mailbox as it is now, for assertions: folder display name → messages. */
  messagesIn(folder: string): StubMessage[];
  folderId(nameOrWellKnown: string): string | undefined;
  /** Every folder's id, the well-known ones and any a client made (the service's Screened, for one). */
  folderIds(): string[];
  /** A folder's display name ("Deleted Items", "Screened"). */
  folderName(id: string): string | undefined;
  /** Makes a folder as the person would in Outlook, at the top or inside another (by id or well-known name); its id. */
  addFolder(displayName: string, parent?: string): string;
  /** The message with this Message-ID header, wherever it is. */
  find(messageIdHeader: string): StubMessage | undefined;
  readonly requests: { method: string; path: string; at: number }[];
  /** How many bytes of each message's MIME (`$value`) the stub produced for clients, by message id. */
  readonly valueBytesServed: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

export interface StubMessage {
  id: string;
  folderId: string;
  raw: Buffer;
  subject: string;
  from: { name: string; address: string };
  to: { name: string; address: string }[];
  cc: { name: string; address: string }[];
  replyTo: { name: string; address: string }[];
  internetMessageId: string;
  conversationId: string;
  received: number;
  isRead: boolean;
  isDraft: boolean;
  flagged: boolean;
  categories: string[];
  text: string;
  html: string | null;
  headers: { name: string; value: string }[];
  attachments: { id: string; name: string; contentType: string; bytes: Buffer; isInline: boolean }[];
}

interface Folder {
  id: string;
  displayName: string;
  wellKnownName: string | null;
  /** The folder it sits in; null at the top of the mailbox (Graph calls that parent the root folder). */
  parentId: string | null;
}

const WELL_KNOWN: [string, string][] = [
  ['inbox', 'Inbox'],
  ['drafts', 'Drafts'],
  ['sentitems', 'Sent Items'],
  ['deleteditems', 'Deleted Items'],
  ['junkemail', 'Junk Email'],
  ['archive', 'Archive'],
];

const newId = () => `AAMkAG${randomBytes(18).toString('base64url')}`;

export async function startGraphStub(opts: { user?: string } = {}): Promise<GraphStub> {
  const user = opts.user ?? 'pat@contoso.test';
  const folders: Folder[] = WELL_KNOWN.map(([wk, name]) => ({
    id: newId(),
    displayName: name,
    wellKnownName: wk,
    parentId: null,
  }));
  const messages = new Map<string, StubMessage>();
  /** Every change, in order: what each folder's delta reads. */
  const log: { seq: number; folderId: string; messageId: string }[] = [];
  let seq = 0;
  // Tokens carry the generation they were issued in; expireDeltaTokens starts a new one (a token issued after it works).
  let generation = 0;
  const faults: {
    count: number;
    status: number;
    retryAfter?: number;
    path?: RegExp;
    method?: string;
    code?: string;
  }[] = [];
  const requests: { method: string; path: string; at: number }[] = [];
  const valueBytesServed = new Map<string, number>();
  const categories = new Set<string>();

  const folderOf = (ref: string) =>
    folders.find((f) => f.id === ref || f.wellKnownName === ref.toLowerCase());
  const touch = (folderId: string, messageId: string) => log.push({ seq: ++seq, folderId, messageId });

  const parse = async (raw: Buffer) => {
    const e = await PostalMime.parse(raw, { attachmentEncoding: 'arraybuffer' });
    const addr = (a: { name?: string | undefined; address?: string | undefined } | undefined) => ({
      name: a?.name ?? '',
      address: a?.address ?? '',
    });
    return {
      subject: e.subject ?? '',
      from: addr(e.from),
      to: (e.to ?? []).map(addr),
      cc: (e.cc ?? []).map(addr),
      replyTo: (e.replyTo ?? []).map(addr),
      internetMessageId: e.messageId ?? `<${newId()}@stub>`,
      text: e.text ?? '',
      html: e.html ?? null,
      headers: e.headers.map((h) => ({ name: h.originalKey, value: h.value })),
      inReplyTo: e.inReplyTo ?? null,
      // A Date header that does not parse leaves the arrival time, as Exchange does.
      date: sentAt(e.date),
      attachments: e.attachments.map((a) => ({
        id: `AAMkAtt${randomBytes(9).toString('base64url')}`,
        name: a.filename ?? 'attachment',
        contentType: a.mimeType,
        bytes: Buffer.from(a.content as ArrayBuffer),
        isInline: a.disposition === 'inline',
      })),
    };
  };

  const store = async (
    raw: Buffer,
    o: { folderId: string; isRead?: boolean; received?: number; categories?: string[]; isDraft?: boolean },
  ): Promise<StubMessage> => {
    const p = await parse(raw);
    const parent =
      p.inReplyTo === null
        ? undefined
        : [...messages.values()].find((m) => m.internetMessageId === p.inReplyTo);
    const m: StubMessage = {
      id: newId(),
      folderId: o.folderId,
      raw,
      subject: p.subject,
      from: p.from,
      to: p.to,
      cc: p.cc,
      replyTo: p.replyTo,
      internetMessageId: p.internetMessageId,
      conversationId: parent?.conversationId ?? `AAQk${randomBytes(12).toString('base64url')}`,
      received: o.received ?? p.date ?? Date.now(),
      isRead: o.isRead ?? false,
      isDraft: o.isDraft ?? false,
      flagged: false,
      categories: o.categories ?? [],
      text: p.text,
      html: p.html,
      headers: p.headers,
      attachments: p.attachments,
    };
    messages.set(m.id, m);
    touch(m.folderId, m.id);
    return m;
  };

  const resource = (m: StubMessage, select: string[] | null, expand?: string) => {
    const full: Record<string, unknown> = {
      id: m.id,
      '@odata.etag': `W/"${String(seq)}"`,
      changeKey: String(seq),
      subject: m.subject,
      from: { emailAddress: m.from },
      sender: { emailAddress: m.from },
      toRecipients: m.to.map((a) => ({ emailAddress: a })),
      ccRecipients: m.cc.map((a) => ({ emailAddress: a })),
      replyTo: m.replyTo.map((a) => ({ emailAddress: a })),
      receivedDateTime: new Date(m.received).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      sentDateTime: new Date(m.received).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      isRead: m.isRead,
      isDraft: m.isDraft,
      flag: { flagStatus: m.flagged ? 'flagged' : 'notFlagged' },
      categories: m.categories,
      bodyPreview: (m.text || '').replace(/\s+/g, ' ').trim().slice(0, 255),
      hasAttachments: m.attachments.some((a) => !a.isInline),
      internetMessageId: m.internetMessageId,
      conversationId: m.conversationId,
      parentFolderId: m.folderId,
      body:
        m.html === null ? { contentType: 'text', content: m.text } : { contentType: 'html', content: m.html },
    };
    // $expand of MAPI PR_MESSAGE_SIZE (Integer 0x0E08), the one extended property the service reads.
    if (/0x0E08/i.test(expand ?? ''))
      full['singleValueExtendedProperties'] = [{ id: 'Integer 0x0E08', value: String(m.raw.length) }];
    if (select === null) return full; // the default set (no internetMessageHeaders)
    const out: Record<string, unknown> = { id: m.id, '@odata.etag': full['@odata.etag'] };
    if (full['singleValueExtendedProperties'] !== undefined)
      out['singleValueExtendedProperties'] = full['singleValueExtendedProperties'];
    for (const f of select) {
      if (f === 'internetMessageHeaders') out[f] = m.headers;
      else if (f in full) out[f] = full[f];
    }
    return out;
  };

  const app = new Hono();
  const err = (c: Context, status: number, code: string, message: string) =>
    c.json({ error: { code, message } }, status as 400);
  const immutable = (c: Context) => /IdType="ImmutableId"/i.test(c.req.header('prefer') ?? '');
  const selectOf = (c: Context) =>
    c.req
      .query('$select')
      ?.split(',')
      .map((s) => s.trim()) ?? null;
  const pageSize = (c: Context, dflt: number) =>
    Number(/odata\.maxpagesize=(\d+)/.exec(c.req.header('prefer') ?? '')?.[1] ?? c.req.query('$top') ?? dflt);
  const base = () => `${url}/v1.0/me`;

  app.use('*', async (c, next): Promise<Response | undefined> => {
    requests.push({
      method: c.req.method,
      path: new URL(c.req.url).pathname + new URL(c.req.url).search,
      at: Date.now(),
    });
    if (!/^Bearer \S+/.test(c.req.header('authorization') ?? ''))
      return c.json(
        { error: { code: 'InvalidAuthenticationToken', message: 'Access token is empty.' } },
        401,
      );
    const path = new URL(c.req.url).pathname;
    const fault = faults.find(
      (f) =>
        (f.path === undefined || f.path.test(path)) && (f.method === undefined || f.method === c.req.method),
    );
    if (fault !== undefined) {
      fault.count--;
      if (fault.count <= 0) faults.splice(faults.indexOf(fault), 1);
      if (fault.retryAfter !== undefined) c.header('Retry-After', String(fault.retryAfter));
      return c.json(
        {
          error: {
            code: fault.code ?? (fault.status === 429 ? 'TooManyRequests' : 'ServiceUnavailable'),
            message: 'Injected fault',
          },
        },
        fault.status as 429,
      );
    }
    await next();
    return undefined;
  });

  const message = (c: Context): StubMessage | undefined => messages.get(c.req.param('id') ?? '');
  const notFound = (c: Context) =>
    err(c, 404, 'ErrorItemNotFound', 'The specified object was not found in the store.');

  app.get('/v1.0/me', (c) => c.json({ mail: user, userPrincipalName: user, displayName: 'Pat Person' }));
  // A folder list is one level: the top of the mailbox, or one folder's childFolders; 10 a page unless $top says.
  const folderResource = (f: Folder) => ({
    id: f.id,
    displayName: f.displayName,
    parentFolderId: f.parentId ?? 'root',
    childFolderCount: folders.filter((x) => x.parentId === f.id).length,
    totalItemCount: [...messages.values()].filter((m) => m.folderId === f.id).length,
  });
  const folderPage = (c: Context, parentId: string | null) => {
    const level = folders.filter((f) => f.parentId === parentId);
    const top = Math.min(1000, Number(c.req.query('$top') ?? 10));
    const skip = Number(c.req.query('$skip') ?? 0);
    const next = new URL(c.req.url);
    next.searchParams.set('$skip', String(skip + top));
    return c.json({
      value: level.slice(skip, skip + top).map(folderResource),
      ...(skip + top < level.length && { '@odata.nextLink': `${url}${next.pathname}${next.search}` }),
    });
  };
  app.get('/v1.0/me/mailFolders', (c) => folderPage(c, null));
  app.get('/v1.0/me/mailFolders/:folder/childFolders', (c) => {
    const f = folderOf(c.req.param('folder'));
    return f === undefined ? err(c, 404, 'ErrorInvalidIdMalformed', 'Id is malformed.') : folderPage(c, f.id);
  });
  app.get('/v1.0/me/mailFolders/:folder', (c) => {
    const f = folderOf(c.req.param('folder'));
    return f === undefined
      ? err(c, 404, 'ErrorInvalidIdMalformed', 'Id is malformed.')
      : c.json(folderResource(f));
  });
  app.post('/v1.0/me/mailFolders', async (c) => {
    const { displayName } = await c.req.json<{ displayName?: string }>();
    if (typeof displayName !== 'string' || displayName.trim() === '')
      return err(c, 400, 'ErrorInvalidRequest', 'displayName is required.');
    if (folders.some((f) => f.parentId === null && f.displayName.toLowerCase() === displayName.toLowerCase()))
      return err(c, 409, 'ErrorFolderExists', 'A folder with the specified name already exists.');
    const f = { id: newId(), displayName, wellKnownName: null, parentId: null };
    folders.push(f);
    return c.json({ id: f.id, displayName: f.displayName, parentFolderId: 'root' }, 201);
  });

  // A folder a client made can be deleted; its messages go to Deleted Items (well-known folders cannot be).
  app.delete('/v1.0/me/mailFolders/:folder', (c) => {
    const f = folderOf(c.req.param('folder'));
    if (f === undefined) return notFound(c);
    if (f.wellKnownName !== null)
      return err(c, 403, 'ErrorDeleteDistinguishedFolder', 'Cannot delete this folder.');
    const bin = folderOf('deleteditems')!;
    for (const m of messages.values())
      if (m.folderId === f.id) {
        touch(m.folderId, m.id);
        m.folderId = bin.id;
        touch(m.folderId, m.id);
      }
    folders.splice(folders.indexOf(f), 1);
    return c.body(null, 204);
  });

  // Delta: see the header comment.
  app.get('/v1.0/me/mailFolders/:folder/messages/delta', (c) => {
    const f = folderOf(c.req.param('folder'));
    if (f === undefined) return err(c, 404, 'ErrorInvalidIdMalformed', 'Id is malformed.');
    const select = selectOf(c);
    const token = c.req.query('$deltatoken');
    const skip = c.req.query('$skiptoken');
    const deltaLink = () =>
      `${base()}/mailFolders/${f.id}/messages/delta?$deltatoken=${Buffer.from(JSON.stringify({ f: f.id, s: seq, g: generation })).toString('base64url')}`;
    if (token === 'latest') return c.json({ value: [], '@odata.deltaLink': deltaLink() });
    let state: { f: string; s: number; o: number; u: number; g?: number };
    try {
      if (skip !== undefined)
        state = JSON.parse(Buffer.from(skip, 'base64url').toString('utf8')) as typeof state;
      else if (token !== undefined)
        state = {
          ...(JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
            f: string;
            s: number;
            g?: number;
          }),
          o: 0,
          u: seq,
        };
      else state = { f: f.id, s: -1, o: 0, u: seq };
    } catch {
      return err(c, 400, 'BadRequest', 'Invalid delta token.');
    }
    if (state.f !== f.id) return err(c, 400, 'BadRequest', 'The delta token belongs to another folder.');
    if (state.s >= 0 && (state.g ?? 0) < generation)
      return err(c, 410, 'SyncStateNotFound', 'The sync state generation is no longer valid.');
    // A first round lists the folder; later rounds what changed in (s, u], newest state of each message.
    let ids: string[];
    if (state.s < 0)
      ids = [...messages.values()]
        .filter((m) => m.folderId === f.id)
        .sort((a, b) => b.received - a.received)
        .map((m) => m.id);
    else
      ids = [
        ...new Set(
          log
            .filter((e) => e.folderId === f.id && e.seq > state.s && e.seq <= state.u)
            .map((e) => e.messageId),
        ),
      ];
    const size = pageSize(c, 10);
    const page = ids.slice(state.o, state.o + size);
    const value = page.map((id) => {
      const m = messages.get(id);
      return m !== undefined && m.folderId === f.id
        ? resource(m, select, c.req.query('$expand'))
        : { id, '@removed': { reason: m === undefined ? 'deleted' : 'changed' } };
    });
    if (state.o + size < ids.length)
      return c.json({
        value,
        '@odata.nextLink': `${base()}/mailFolders/${f.id}/messages/delta?$skiptoken=${Buffer.from(JSON.stringify({ ...state, o: state.o + size })).toString('base64url')}`,
      });
    return c.json({
      value,
      '@odata.deltaLink': `${base()}/mailFolders/${f.id}/messages/delta?$deltatoken=${Buffer.from(JSON.stringify({ f: f.id, s: state.u, g: generation })).toString('base64url')}`,
    });
  });

  const list = (c: Context, inFolder: Folder | undefined) => {
    const search = c.req.query('$search');
    let found = [...messages.values()].filter((m) => inFolder === undefined || m.folderId === inFolder.id);
    if (search !== undefined) {
      if (c.req.query('$orderby') !== undefined || c.req.query('$filter') !== undefined)
        return err(
          c,
          400,
          'ErrorInvalidUrlQuery',
          'The query parameter $orderby is not supported with $search.',
        );
      const words = search.replace(/^"|"$/g, '').toLowerCase().split(/\s+/).filter(Boolean);
      found = found.filter((m) => {
        const hay = `${m.subject} ${m.from.name} ${m.from.address} ${m.text}`.toLowerCase();
        return words.every((w) => hay.includes(w));
      });
      if (inFolder === undefined) {
        const hidden = new Set([folderOf('deleteditems')!.id, folderOf('junkemail')!.id]);
        found = found.filter((m) => !hidden.has(m.folderId));
      }
      found = found.slice(0, 1000);
    }
    const filterText = c.req.query('$filter') ?? '';
    const filter = /^receivedDateTime lt (\S+)$/.exec(filterText);
    if (filter !== null) found = found.filter((m) => m.received < Date.parse(filter[1]!));
    const byId = /^internetMessageId eq '((?:[^']|'')*)'$/.exec(filterText);
    if (byId !== null) found = found.filter((m) => m.internetMessageId === byId[1]!.replace(/''/g, "'"));
    if (filterText !== '' && filter === null && byId === null)
      return err(c, 400, 'ErrorInvalidUrlQueryFilter', 'The filter is not supported by this stub.');
    found.sort((a, b) => b.received - a.received);
    const top = Math.min(1000, Number(c.req.query('$top') ?? 10));
    const skip = Number(c.req.query('$skip') ?? 0);
    const page = found.slice(skip, skip + top);
    const next = new URL(c.req.url);
    next.searchParams.set('$skip', String(skip + top));
    return c.json({
      value: page.map((m) => resource(m, selectOf(c), c.req.query('$expand'))),
      ...(skip + top < found.length &&
        search === undefined && { '@odata.nextLink': `${url}${next.pathname}${next.search}` }),
    });
  };
  app.get('/v1.0/me/mailFolders/:folder/messages', (c) => {
    const f = folderOf(c.req.param('folder'));
    return f === undefined ? err(c, 404, 'ErrorInvalidIdMalformed', 'Id is malformed.') : list(c, f);
  });
  app.get('/v1.0/me/messages', (c) => list(c, undefined));

  app.get('/v1.0/me/messages/:id', (c) => {
    const m = message(c);
    return m === undefined ? notFound(c) : c.json(resource(m, selectOf(c), c.req.query('$expand')));
  });
  app.get('/v1.0/me/messages/:id/$value', (c) => {
    const m = message(c);
    if (m === undefined) return notFound(c);
    // Streamed as it is read, 64 KB at a time, as Graph streams a message: what a client that stops early did not
    // read is never sent, and valueBytesServed says how much was.
    const raw = m.raw;
    let at = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          const chunk = raw.subarray(at, at + 64 * 1024);
          at += chunk.length;
          valueBytesServed.set(m.id, (valueBytesServed.get(m.id) ?? 0) + chunk.length);
          if (chunk.length > 0) controller.enqueue(new Uint8Array(chunk));
          if (at >= raw.length) controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    return c.body(body, 200, { 'content-type': 'text/plain', 'content-length': String(raw.length) });
  });
  app.get('/v1.0/me/messages/:id/attachments', (c) => {
    const m = message(c);
    if (m === undefined) return notFound(c);
    return c.json({
      value: m.attachments.map((a) => ({
        '@odata.type': '#microsoft.graph.fileAttachment',
        id: a.id,
        name: a.name,
        contentType: a.contentType,
        size: a.bytes.length,
        isInline: a.isInline,
      })),
    });
  });
  app.get('/v1.0/me/messages/:id/attachments/:aid', (c) => {
    const a = message(c)?.attachments.find((x) => x.id === c.req.param('aid'));
    return a === undefined
      ? notFound(c)
      : c.json({
          '@odata.type': '#microsoft.graph.fileAttachment',
          id: a.id,
          name: a.name,
          contentType: a.contentType,
          size: a.bytes.length,
          isInline: a.isInline,
          contentBytes: a.bytes.toString('base64'),
        });
  });
  app.patch('/v1.0/me/messages/:id', async (c) => {
    const m = message(c);
    if (m === undefined) return notFound(c);
    const body = await c.req.json<{
      isRead?: boolean;
      flag?: { flagStatus?: string };
      categories?: string[];
      subject?: string;
      body?: { contentType?: string; content?: string };
      toRecipients?: { emailAddress: { name?: string; address: string } }[];
      ccRecipients?: { emailAddress: { name?: string; address: string } }[];
    }>();
    const content = ['subject', 'body', 'toRecipients', 'ccRecipients'].some((k) => k in body);
    if (content && !m.isDraft) return err(c, 400, 'ErrorInvalidOperation', 'Only a draft can be edited.');
    if (content) {
      if (body.subject !== undefined) m.subject = body.subject;
      if (body.body?.content !== undefined) {
        m.text =
          body.body.contentType === 'html' ? body.body.content.replace(/<[^>]*>/g, '') : body.body.content;
        m.html = body.body.contentType === 'html' ? body.body.content : null;
      }
      const who = (l: { emailAddress: { name?: string; address: string } }[]) =>
        l.map((r) => ({ name: r.emailAddress.name ?? '', address: r.emailAddress.address }));
      if (body.toRecipients !== undefined) m.to = who(body.toRecipients);
      if (body.ccRecipients !== undefined) m.cc = who(body.ccRecipients);
      const parentRef = m.headers.find((h) => h.name.toLowerCase() === 'in-reply-to')?.value;
      const list = (a: { name: string; address: string }[]) => a.map((x) => x.address).join(', ');
      m.raw = Buffer.from(
        [
          `From: ${user}`,
          `To: ${list(m.to)}`,
          ...(m.cc.length > 0 ? [`Cc: ${list(m.cc)}`] : []),
          `Subject: ${m.subject}`,
          `Message-ID: ${m.internetMessageId}`,
          ...(parentRef !== undefined ? [`In-Reply-To: ${parentRef}`, `References: ${parentRef}`] : []),
          'Content-Type: text/plain; charset=utf-8',
          '',
          m.text,
          '',
        ].join('\r\n'),
      );
    }
    if (body.isRead !== undefined) m.isRead = body.isRead;
    if (body.flag?.flagStatus !== undefined) m.flagged = body.flag.flagStatus === 'flagged';
    if (body.categories !== undefined) m.categories = [...body.categories];
    touch(m.folderId, m.id);
    return c.json(resource(m, null));
  });
  app.post('/v1.0/me/messages/:id/move', async (c) => {
    const m = message(c);
    if (m === undefined) return notFound(c);
    const { destinationId } = await c.req.json<{ destinationId?: string }>();
    const to = folderOf(destinationId ?? '');
    if (to === undefined) return err(c, 400, 'ErrorInvalidIdMalformed', 'Id is malformed.');
    touch(m.folderId, m.id);
    m.folderId = to.id;
    if (!immutable(c)) {
      // Without immutable ids a move makes a new item: the old id is gone.
      messages.delete(m.id);
      m.id = newId();
      messages.set(m.id, m);
    }
    touch(m.folderId, m.id);
    return c.json(resource(m, null), 201);
  });
  app.delete('/v1.0/me/messages/:id', (c) => {
    const m = message(c);
    if (m === undefined) return notFound(c);
    touch(m.folderId, m.id);
    m.folderId = folderOf('deleteditems')!.id;
    touch(m.folderId, m.id);
    return c.body(null, 204);
  });
  app.post('/v1.0/me/messages/:id/permanentDelete', (c) => {
    const m = message(c);
    if (m === undefined) return notFound(c);
    messages.delete(m.id);
    touch(m.folderId, m.id);
    return c.body(null, 204);
  });
  // A draft from MIME (base64, text/plain) or JSON, in Drafts.
  app.post('/v1.0/me/messages', async (c) => {
    const type = c.req.header('content-type') ?? '';
    if (!type.startsWith('text/plain'))
      return err(c, 400, 'ErrorInvalidRequest', 'Only MIME drafts in this stub.');
    const raw = Buffer.from(await c.req.text(), 'base64');
    const m = await store(raw, {
      folderId: folderOf('drafts')!.id,
      isRead: true,
      isDraft: true,
      received: Date.now(),
    });
    return c.json(resource(m, null), 201);
  });
  app.post('/v1.0/me/messages/:id/createReply', async (c) => {
    const parent = message(c);
    if (parent === undefined) return notFound(c);
    const body = (await c.req.json().catch(() => ({}))) as { comment?: string };
    const raw = Buffer.from(
      `From: ${user}\r\nTo: ${parent.from.address}\r\nSubject: RE: ${parent.subject}\r\nIn-Reply-To: ${parent.internetMessageId}\r\nReferences: ${parent.internetMessageId}\r\nMessage-ID: <${newId()}@stub>\r\n\r\n${body.comment ?? ''}\r\n`,
    );
    const m = await store(raw, {
      folderId: folderOf('drafts')!.id,
      isRead: true,
      isDraft: true,
      received: Date.now(),
    });
    m.conversationId = parent.conversationId;
    return c.json(resource(m, null), 201);
  });
  app.post('/v1.0/me/messages/:id/send', (c) => {
    const m = message(c);
    if (m === undefined) return notFound(c);
    if (!m.isDraft) return err(c, 400, 'ErrorInvalidOperation', 'Only drafts can be sent.');
    touch(m.folderId, m.id);
    m.isDraft = false;
    m.folderId = folderOf('sentitems')!.id;
    m.received = Date.now();
    touch(m.folderId, m.id);
    return c.body(null, 202);
  });
  app.get('/v1.0/me/outlook/masterCategories', (c) =>
    c.json({ value: [...categories].map((displayName) => ({ id: newId(), displayName, color: 'preset0' })) }),
  );
  app.post('/v1.0/me/outlook/masterCategories', async (c) => {
    const { displayName } = await c.req.json<{ displayName?: string }>();
    if (typeof displayName !== 'string')
      return err(c, 400, 'ErrorInvalidRequest', 'displayName is required.');
    if (categories.has(displayName)) return err(c, 409, 'ErrorDuplicateObject', 'The category exists.');
    categories.add(displayName);
    return c.json({ id: newId(), displayName, color: 'preset0' }, 201);
  });
  app.notFound((c) =>
    err(c, 400, 'BadRequest', `Unsupported request in the stub: ${c.req.method} ${c.req.path}`),
  );

  const listener = getRequestListener(app.fetch);
  const server: Server = createServer((req, res) => {
    void listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;

  return {
    url,
    user,
    requests,
    valueBytesServed,
    async deliver(raw, o = {}) {
      const folder = folderOf(o.folder ?? 'inbox');
      if (folder === undefined) throw new Error(`no folder ${o.folder ?? ''}`);
      const m = await store(raw, {
        folderId: folder.id,
        ...(o.isRead !== undefined && { isRead: o.isRead }),
        ...(o.received !== undefined && { received: o.received.getTime() }),
        ...(o.categories !== undefined && { categories: o.categories }),
      });
      m.flagged = o.flagged === true;
      return m.id;
    },
    expireDeltaTokens() {
      generation++;
    },
    failNext(count, fault) {
      faults.push({ count, ...fault });
    },
    clearFaults() {
      faults.length = 0;
    },
    messagesIn(folder) {
      const f = folderOf(folder) ?? folders.find((x) => x.displayName === folder);
      return [...messages.values()].filter((m) => m.folderId === f?.id);
    },
    find: (messageIdHeader) => [...messages.values()].find((m) => m.internetMessageId === messageIdHeader),
    folderId: (name) => (folderOf(name) ?? folders.find((x) => x.displayName === name))?.id,
    folderIds: () => folders.map((f) => f.id),
    folderName: (id) => folders.find((f) => f.id === id)?.displayName,
    addFolder(displayName, parent) {
      const parentId = parent === undefined ? null : (folderOf(parent)?.id ?? null);
      if (parent !== undefined && parentId === null) throw new Error(`no folder ${parent}`);
      const f = { id: newId(), displayName, wellKnownName: null, parentId };
      folders.push(f);
      return f.id;
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

/** The Date header as a time Graph can write as an ISO 8601 date; undefined when it has none that parses. */
function sentAt(header: string | undefined): number | undefined {
  const t = header === undefined ? NaN : Date.parse(header);
  return Number.isNaN(t) || Math.abs(t) > 8.64e15 ? undefined : t;
}
