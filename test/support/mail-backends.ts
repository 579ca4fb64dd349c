import { gmail } from '@googleapis/gmail';
import { moveLabels } from '../../src/adapters/mail/gmail/gmail-folders.ts';
import type { App } from '../../src/app.ts';
import type { Config } from '../../src/config/config.ts';
import type { InboxId } from '../../src/core/inboxes/inbox.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { listen } from '../../src/transports/http/serve.ts';
import { launchBrowser } from '../rig/browser.ts';
import { dkimSigner, ONE_CLICK_HEADERS, type DkimSigner } from '../rig/dkim-fixtures.ts';
import { freePort } from '../rig/free-port.ts';
import { startGoogleEmulator } from '../rig/gmail-emulator.ts';
import { startGraphStub } from '../rig/graph-stub.ts';
import { startHttpsSink, testTls, type SeenRequest } from '../rig/https-sink.ts';
import { buildMessage, freshPgDatabase } from '../rig/index.ts';
import { startMailServers } from '../rig/mail-servers.ts';
import { startMicrosoftSignIn } from '../rig/microsoft-sign-in.ts';
import { connectImapInbox, imapClient } from './imap-inbox.ts';
import { recordingLogger } from './recording-logger.ts';
import { createTestApp, NO_RATE_LIMITS } from './test-app.ts';
import { agentOn } from './tool-caller.ts';

/**
 * One account's inbox on each kind of mailbox the service reaches, for tests that run the same agents against all of
 * them (the safety model, another client's changes): the demo inbox (in one process, or on two nodes on
 * PostgreSQL), an IMAP inbox on Dovecot sending to the SMTP sink, a Microsoft 365 inbox on the Graph stub and a Gmail
 * inbox on emulate (each signed in through Chromium, in one process or on two nodes). Each mailbox but the demo holds
 * the same 51 messages (modelMail), can be read past the service (`mailbox`) and changed by another client
 * (`outside`).
 */

export type Folder = 'inbox' | 'trash' | 'spam' | 'archive';
export const FLAGGED = '\\Flagged';

/** One message as the mailbox itself holds it (the demo's rows, a direct IMAP listing, the provider's API). */
export interface MailboxRow {
  path: string;
  /** The provider's reference, as the index stores it (the demo's and IMAP's: the UID). */
  ref: string;
  flags: string[];
  messageId: string | undefined;
}
/** Another mail client on the same mailbox: what the person's phone or webmail does while the agents work. */
export interface Outside {
  move(row: MailboxRow, to: Folder): Promise<void>;
  flag(row: MailboxRow, flag: string, on: boolean): Promise<void>;
  remove(row: MailboxRow): Promise<void>;
  deliver(raw: Buffer): Promise<void>;
  /** Deletes a folder (a label on Gmail) the service made, as the person would in another client. */
  deleteFolder(path: string): Promise<void>;
  /**
   * The provider forgets the change log the service holds (Gmail's history, Graph's delta tokens), as after a week
   * away; the messages and their ids stay. Only where refs outlive the log (decision 0045).
   */
  expireChangeLog?(): Promise<void>;
}
/** Senders of the mail only the other client changes in the safety model (never in its pool). */
export const OUTSIDE_DOMAIN = 'elsewhere.example.test';

/** Where a suite's agents work: the app, its clock, the first agent and the inbox, and the mailbox read directly. */
export interface Backend {
  readonly app: App;
  /** Where the second agent's calls go: another node on the same database, or the same app. */
  readonly secondNode?: App;
  readonly clock: ReturnType<typeof fixedClock>;
  readonly agent: Awaited<ReturnType<typeof agentOn>>;
  readonly inboxId: string;
  readonly isDemo: boolean;
  readonly mailbox: () => Promise<MailboxRow[]>;
  /** Messages that reached the SMTP sink (the demo sends nowhere: its Sent folder is the record). */
  readonly delivered: () => number | undefined;
  /** The mailbox's paths of Sent and Drafts, and the plain name of a path (Trash, Archive) for the race tests. */
  readonly sentPath: string;
  readonly draftsPath: string;
  readonly placeName: (path: string) => string;
  readonly outside?: Outside;
  /** The list mail's signer and the https sink its one-click links lead to (not on the demo inbox). */
  readonly lists?: ListMail;
  /** Every line the service logged (errors with their message and stack), for failure reports. */
  readonly logged?: readonly string[];
  readonly close: () => Promise<void>;
}

/** The mailbox's path of a canonical folder, as the index has it. */
export async function canonicalPath(app: App, inboxId: string, folder: Folder): Promise<string> {
  const found = (await app.stores.folders.list(inboxId as InboxId)).find((f) => f.canonical === folder);
  if (found === undefined) throw new Error(`no ${folder} folder`);
  return found.path;
}

const IMAP_PLACES = { sentPath: 'Sent', draftsPath: 'Drafts', placeName: (path: string) => path } as const;

export const START = new Date(Date.UTC(2026, 10, 2, 9, 0, 0));

/** The account's demo inbox: the mailbox is the demo's own rows. */
export async function demoBackend(): Promise<Backend> {
  const clock = fixedClock(START);
  const app = await createTestApp({ config: { rateLimits: NO_RATE_LIMITS }, overrides: { clock } });
  return demoOn(app, clock);
}

/**
 * The demo inbox on PostgreSQL with two nodes, one per agent: every rule must hold across nodes as in one process
 * (issue 20), with both agents' calls racing on different processes' pools and locks.
 */
export async function demoTwoNodesBackend(): Promise<Backend> {
  const clock = fixedClock(START);
  const url = await freshPgDatabase();
  const nodes = { config: { rateLimits: NO_RATE_LIMITS }, overrides: { clock }, pgUrl: url };
  const app = await createTestApp(nodes);
  const second = await createTestApp(nodes);
  const be = await demoOn(app, clock);
  return {
    ...be,
    secondNode: second,
    close: async () => {
      await second.close();
      await app.close();
    },
  };
}

async function demoOn(app: App, clock: ReturnType<typeof fixedClock>): Promise<Backend> {
  const agent = await agentOn(app);
  const inboxes = (await agent.call('list_inboxes')).body['inboxes'] as { id: string; isDemo: boolean }[];
  const inboxId = inboxes.find((i) => i.isDemo)!.id;
  const mailbox = async (): Promise<MailboxRow[]> =>
    (
      await app.db.kysely
        .selectFrom('demo_messages')
        .select(['folder_path', 'uid', 'flags_json', 'doc_json'])
        .where('inbox_id', '=', inboxId)
        .execute()
    ).map((r) => ({
      path: r.folder_path,
      ref: String(r.uid),
      flags: JSON.parse(r.flags_json) as string[],
      messageId: (JSON.parse(r.doc_json) as { messageId?: string }).messageId,
    }));
  return {
    app,
    clock,
    agent,
    inboxId,
    isDemo: true,
    mailbox,
    delivered: () => undefined,
    ...IMAP_PLACES,
    close: () => app.close(),
  };
}

/** What a test needs to add list mail of its own to a non-demo mailbox. */
export interface ListMail {
  /** Signs for `lists.example.test`, whose key the service is handed. */
  readonly signer: DkimSigner;
  /** A one-click link on the local https sink the service may post to. */
  readonly link: (path: string) => string;
  /** The requests the sink received. */
  readonly requests: readonly SeenRequest[];
}

/** Where list mail's DKIM keys and one-click links lead: a signer, and a local https sink the service may post to. */
async function listMailRig() {
  const signer = dkimSigner('lists.example.test');
  const tls = testTls(['unsub.lists.example.test']);
  const https = await startHttpsSink(tls);
  return {
    config: { unsubscribeAllowedHosts: ['unsub.lists.example.test'] },
    overrides: {
      dkimResolver: signer.resolver,
      unsubscribeCa: tls.ca,
      unsubscribeLookup: (name: string) =>
        name === 'unsub.lists.example.test'
          ? Promise.resolve(['127.0.0.1'])
          : Promise.reject(new Error('ENOTFOUND')),
    },
    close: () => https.close(),
    handle: {
      signer,
      link: (path: string) => `https://unsub.lists.example.test:${String(https.port)}${path}`,
      requests: https.requests,
    } satisfies ListMail,
  };
}

/** The mailbox of a non-demo suite: a VIP and another frequent sender (3–8 messages each), people who wrote once, and three DKIM-signed lists with one-click links. */
async function modelMail(
  to: string,
  rig: Awaited<ReturnType<typeof listMailRig>>,
): Promise<{ raw: Buffer; date: Date; messageId: string }[]> {
  const mail: { raw: Buffer; date: Date; messageId: string }[] = [];
  const add = async (from: string, list?: number) => {
    const i = mail.length;
    const date = new Date(START.getTime() - (100 - i) * 3_600_000);
    const messageId = `<m${String(i)}@model.example.test>`;
    const raw = buildMessage({
      from: { name: from.split('@')[0] ?? '', address: from },
      to: [{ address: to }],
      subject: `Message ${String(i)}`,
      date,
      messageId,
      text: `Hello, this is message ${String(i)}.`,
      ...(list !== undefined && {
        list: {
          id: `list${String(list)}.lists.example.test`,
          unsubscribeHttps: rig.handle.link(`/u/${String(list)}`),
          oneClick: true,
        },
      }),
    });
    mail.push({
      raw: list === undefined ? raw : await rig.handle.signer.sign(raw, ONE_CLICK_HEADERS),
      date,
      messageId,
    });
  };
  for (let i = 0; i < 6; i++) await add('vip@people.example.test');
  for (let i = 0; i < 4; i++) await add('colleague@people.example.test');
  for (let i = 0; i < 30; i++) await add(`person${String(i)}@people.example.test`);
  for (let l = 0; l < 3; l++) await add(`news${String(l)}@lists.example.test`, l);
  for (let i = 0; i < 8; i++) await add(`stranger${String(i)}@${OUTSIDE_DOMAIN}`);
  return mail;
}

/**
 * A server of the plainest kind IMAP4rev1 allows, as older and smaller providers are: it offers nothing beyond
 * IMAP4rev1 — no MOVE (RFC 6851), UIDPLUS (RFC 4315), CONDSTORE or QRESYNC (RFC 7162), ESEARCH, SPECIAL-USE (RFC
 * 6154: its folders known only by name), IDLE (RFC 2177), NAMESPACE (RFC 2342), ENABLE or LITERAL+ — and, as it has
 * no UIDPLUS, never says where a copied or appended message landed (Dovecot does, unasked: a proxy takes it out).
 */
export const PLAIN_IMAP_SERVER = {
  capabilities: 'IMAP4rev1',
  specialUse: false,
  uidplus: false,
} as const;

/**
 * An IMAP inbox on Dovecot, sending through the SMTP sink, with DKIM-signed list mail whose one-click links go to a
 * local https sink: the same agents and rules, against a real mail server (issue 21, S1).
 */
export async function dovecotBackend(
  server?: Parameters<typeof startMailServers>[0]['server'],
): Promise<Backend> {
  const user = 'model';
  const password = 'model-imap-password';
  const clock = fixedClock(START);
  const lists = await listMailRig();
  const recorded = recordingLogger();
  const mail = (await modelMail(`${user}@example.test`, lists)).map((m) => m.raw);
  const { dovecot, sink } = await startMailServers({
    user,
    password,
    mail,
    ...(server !== undefined && { server }),
  });
  const app = await createTestApp({
    config: { rateLimits: NO_RATE_LIMITS, ...lists.config },
    overrides: { clock, log: recorded.log, ...lists.overrides },
  });
  const agent = await agentOn(app);
  const inboxId = await connectImapInbox(app, agent.call, { dovecot, user, password, smtpPort: sink.port });
  // One login of our own; every folder EXAMINEd afresh on each read, so its listing is the server's state now.
  const direct = await imapClient(dovecot, user, password);
  // One login opens one folder at a time: its uses run one after another, as one client's would.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const run = queue.then(f);
    queue = run.catch(() => undefined);
    return run;
  };
  const mailbox = (): Promise<MailboxRow[]> =>
    serial(async () => {
      const rows: MailboxRow[] = [];
      for (const box of await direct.list()) {
        const opened = await direct.mailboxOpen(box.path, { readOnly: true });
        if (opened.exists === 0) continue;
        for await (const m of direct.fetch('1:*', { uid: true, flags: true, envelope: true }))
          rows.push({
            path: box.path,
            ref: String(m.uid),
            flags: [...(m.flags ?? new Set<string>())].filter((f) => f !== '\\Recent'),
            messageId: m.envelope?.messageId,
          });
      }
      return rows;
    });
  return {
    app,
    clock,
    agent,
    inboxId,
    isDemo: false,
    lists: lists.handle,
    logged: recorded.lines,
    mailbox,
    delivered: () => sink.received.length,
    ...(server?.underInbox === true
      ? {
          sentPath: 'INBOX.Sent',
          draftsPath: 'INBOX.Drafts',
          placeName: (path: string) => path.replace(/^INBOX\./, ''),
        }
      : IMAP_PLACES),
    // The same login as the listing's; each change opens its folder read-write first.
    outside: {
      async move(row, to) {
        const dest = await canonicalPath(app, inboxId, to);
        if (dest === row.path) return;
        await serial(async () => {
          await direct.mailboxOpen(row.path);
          await direct.messageMove(row.ref, dest, { uid: true });
        });
      },
      flag: (row, flag, on) =>
        serial(async () => {
          await direct.mailboxOpen(row.path);
          await (on
            ? direct.messageFlagsAdd(row.ref, [flag], { uid: true })
            : direct.messageFlagsRemove(row.ref, [flag], { uid: true }));
        }),
      remove: (row) =>
        serial(async () => {
          await direct.mailboxOpen(row.path);
          await direct.messageDelete(row.ref, { uid: true });
        }),
      deliver: (raw) =>
        serial(async () => {
          await direct.append('INBOX', raw);
        }),
      deleteFolder: (path) =>
        serial(async () => {
          if (direct.mailbox !== false && direct.mailbox.path === path) await direct.mailboxClose();
          await direct.mailboxDelete(path);
        }),
    },
    close: async () => {
      await direct.logout();
      await app.close();
      await Promise.all([dovecot.stop(), sink.stop(), lists.close()]);
    },
  };
}

/**
 * The service for a provider that signs in with OAuth: on one node, or two on a fresh PostgreSQL database (the second
 * serves agent B), the first on a real port (the provider's sign-in redirects the browser to it), with an inbox of
 * that provider added and signed in through Chromium. Returns what every such Backend shares.
 */
async function signedInNodes(o: {
  readonly twoNodes: boolean | undefined;
  readonly port: number;
  readonly clock: ReturnType<typeof fixedClock>;
  readonly lists: Awaited<ReturnType<typeof listMailRig>>;
  readonly config: Partial<Config>;
  readonly secret: { googleClientSecret: string } | { microsoftClientSecret: string };
  readonly provider: 'google' | 'microsoft';
  readonly email: string;
}) {
  const recorded = recordingLogger();
  const baseUrl = `http://127.0.0.1:${String(o.port)}`;
  const pgUrl = o.twoNodes === true ? await freshPgDatabase() : undefined;
  const nodeOptions: Parameters<typeof createTestApp>[0] = {
    config: {
      rateLimits: NO_RATE_LIMITS,
      ...o.lists.config,
      baseUrl,
      mcpAllowedOrigins: [baseUrl],
      ...o.config,
    },
    ...o.secret,
    overrides: { clock: o.clock, log: recorded.log, ...o.lists.overrides },
    ...(pgUrl !== undefined && { pgUrl }),
  };
  const app = await createTestApp(nodeOptions);
  const second = pgUrl === undefined ? undefined : await createTestApp(nodeOptions);
  const server = await listen(app.fetch, {
    host: '127.0.0.1',
    port: o.port,
    log: silentLogger,
    lane: app.lane,
  });
  const agent = await agentOn(app);
  const added = await agent.call('add_inbox', { label: 'Model', provider: o.provider, email: o.email });
  const inboxId = (added.body['inbox'] as { id: string }).id;
  const link = (await agent.call(`start_${o.provider}_oauth`, { inboxId })).body['url'] as string;
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(link);
    await page.getByRole('button', { name: new RegExp(o.email.replaceAll('.', '\\.')) }).click();
    await page.waitForURL(new RegExp(`/connect/${o.provider}/callback`));
    await page.getByRole('heading', { name: `${o.email} is connected` }).waitFor();
  } finally {
    await browser.close();
  }
  return {
    shared: {
      app,
      clock: o.clock,
      agent,
      inboxId,
      ...(second !== undefined && { secondNode: second }),
      isDemo: false,
      lists: o.lists.handle,
      logged: recorded.lines,
      delivered: () => undefined,
    },
    close: async () => {
      await server.close(1000);
      await second?.close();
      await app.close();
      await o.lists.close();
    },
  };
}

const MS_CLIENT = { id: '11111111-2222-3333-4444-555555555555', secret: 'entra-test-secret' };

/** A Microsoft 365 inbox: the Graph stub for mail, emulate's Entra sign-in; folders are Graph's folder ids. */
export async function graphBackend(opts: { twoNodes?: boolean } = {}): Promise<Backend> {
  const user = 'pat@contoso.test';
  const clock = fixedClock(START);
  const lists = await listMailRig();
  const graph = await startGraphStub({ user });
  for (const m of await modelMail(user, lists)) await graph.deliver(m.raw, { received: m.date });
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${String(port)}`;
  const entra = await startMicrosoftSignIn({
    user,
    client: { ...MS_CLIENT, redirectUri: `${baseUrl}/connect/microsoft/callback` },
  });
  const nodes = await signedInNodes({
    twoNodes: opts.twoNodes,
    port,
    clock,
    lists,
    config: {
      microsoft: {
        clientId: MS_CLIENT.id,
        tenant: 'common',
        authority: entra.url,
        graphApiUrl: graph.url,
        pollSeconds: 30,
      },
    },
    secret: { microsoftClientSecret: MS_CLIENT.secret },
    provider: 'microsoft',
    email: user,
  });
  const { app, inboxId } = nodes.shared;
  /** Another client's Graph request (the stub's own API, as graph-harness.ts). */
  const asOther = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${graph.url}/v1.0/me${path}`, {
      method,
      headers: {
        authorization: 'Bearer another-client',
        prefer: 'IdType="ImmutableId"',
        'content-type': 'application/json',
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${String(res.status)}`);
  };
  const name = new Map([
    [graph.folderId('deleteditems'), 'Trash'],
    [graph.folderId('archive'), 'Archive'],
  ]);
  const mailbox = (): Promise<MailboxRow[]> =>
    Promise.resolve(
      graph.folderIds().flatMap((place) =>
        graph.messagesIn(place).map((m) => ({
          path: m.folderId,
          ref: m.id,
          flags: [...(m.isRead ? ['\\Seen'] : []), ...(m.flagged ? [FLAGGED] : []), ...m.categories],
          messageId: m.internetMessageId,
        })),
      ),
    );
  return {
    ...nodes.shared,
    mailbox,
    sentPath: graph.folderId('sentitems')!,
    draftsPath: graph.folderId('drafts')!,
    placeName: (path) => name.get(path) ?? graph.folderName(path) ?? path,
    outside: {
      async move(row, to) {
        const dest = await canonicalPath(app, inboxId, to);
        if (dest !== row.path) await asOther('POST', `/messages/${row.ref}/move`, { destinationId: dest });
      },
      async flag(row, flag, on) {
        await asOther(
          'PATCH',
          `/messages/${row.ref}`,
          flag === FLAGGED ? { flag: { flagStatus: on ? 'flagged' : 'notFlagged' } } : { isRead: on },
        );
      },
      async remove(row) {
        await asOther('POST', `/messages/${row.ref}/permanentDelete`);
      },
      async deliver(raw) {
        await graph.deliver(raw);
      },
      async deleteFolder(path) {
        await asOther('DELETE', `/mailFolders/${path}`);
      },
      expireChangeLog() {
        graph.expireDeltaTokens();
        return Promise.resolve();
      },
    },
    close: async () => {
      await nodes.close();
      await Promise.all([graph.close(), entra.close()]);
    },
  };
}

const GOOGLE_CLIENT = { id: 'triage-test.apps.googleusercontent.com', secret: 'test-client-secret-123' };

/**
 * A Gmail inbox: emulate's Gmail and Google sign-in behind our stub of what it lacks. Folders are Gmail's system
 * labels, the Screened label once made (mail in no system label that carries it), and ARCHIVE (in none of them); the
 * model's labels are user labels made beforehand, by name.
 */
export async function gmailBackend(opts: { twoNodes?: boolean } = {}): Promise<Backend> {
  const clock = fixedClock(START);
  const lists = await listMailRig();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${String(port)}`;
  const google = await startGoogleEmulator({
    client: { ...GOOGLE_CLIENT, redirectUri: `${baseUrl}/connect/google/callback` },
  });
  const api = gmail({ version: 'v1', rootUrl: `${google.url}/` });
  const other = { headers: { authorization: 'Bearer another-client' } };
  for (const name of ['Travel', 'Receipts', 'model-label', 'model-sender'])
    await api.users.labels.create({ userId: 'me', requestBody: { name } }, other);
  for (const m of await modelMail(google.user, lists))
    await api.users.messages.insert(
      {
        userId: 'me',
        internalDateSource: 'dateHeader',
        requestBody: { raw: m.raw.toString('base64url'), labelIds: ['INBOX', 'UNREAD'] },
      },
      other,
    );
  const nodes = await signedInNodes({
    twoNodes: opts.twoNodes,
    port,
    clock,
    lists,
    config: {
      google: { clientId: GOOGLE_CLIENT.id, issuer: google.url, gmailApiUrl: google.url, pollSeconds: 30 },
    },
    secret: { googleClientSecret: GOOGLE_CLIENT.secret },
    provider: 'google',
    email: google.user,
  });
  const { app, inboxId } = nodes.shared;
  const mailbox = async (): Promise<MailboxRow[]> => {
    const labels = (await api.users.labels.list({ userId: 'me' }, other)).data.labels ?? [];
    const userLabel = new Map(labels.filter((l) => l.type === 'user').map((l) => [l.id ?? '', l.name ?? '']));
    const screened = [...userLabel].find(([, name]) => name.toLowerCase() === 'screened')?.[0];
    const rows: MailboxRow[] = [];
    let pageToken: string | undefined;
    do {
      const page = await api.users.messages.list(
        {
          userId: 'me',
          includeSpamTrash: true,
          maxResults: 500,
          ...(pageToken !== undefined && { pageToken }),
        },
        other,
      );
      const got = await Promise.all(
        (page.data.messages ?? []).map(
          async ({ id }) =>
            (
              await api.users.messages.get(
                { userId: 'me', id: id ?? '', format: 'metadata', metadataHeaders: ['Message-ID'] },
                other,
              )
            ).data,
        ),
      );
      for (const m of got) {
        const has = (l: string) => m.labelIds?.includes(l) === true;
        const path =
          ['TRASH', 'SPAM', 'INBOX', 'DRAFT', 'SENT'].find(has) ??
          (screened !== undefined && has(screened) ? screened : 'ARCHIVE');
        rows.push({
          path,
          ref: m.id ?? '',
          flags: [
            ...(has('UNREAD') ? [] : ['\\Seen']),
            ...(has('STARRED') ? [FLAGGED] : []),
            ...(m.labelIds ?? []).flatMap((l) => (userLabel.has(l) ? [userLabel.get(l) ?? ''] : [])),
          ],
          messageId:
            m.payload?.headers?.find((h) => h.name?.toLowerCase() === 'message-id')?.value ?? undefined,
        });
      }
      pageToken = page.data.nextPageToken ?? undefined;
    } while (pageToken !== undefined);
    return rows;
  };
  return {
    ...nodes.shared,
    mailbox,
    sentPath: 'SENT',
    draftsPath: 'DRAFT',
    placeName: (path) => ({ TRASH: 'Trash', ARCHIVE: 'Archive' })[path] ?? path,
    outside: {
      async move(row, to) {
        const dest = await canonicalPath(app, inboxId, to);
        if (dest === row.path) return;
        const { add, remove } = moveLabels(row.path, dest);
        await api.users.messages.modify(
          { userId: 'me', id: row.ref, requestBody: { addLabelIds: add, removeLabelIds: remove } },
          other,
        );
      },
      async flag(row, flag, on) {
        // \Seen is the absence of UNREAD; \Flagged is STARRED.
        const [label, add] = flag === FLAGGED ? ['STARRED', on] : ['UNREAD', !on];
        await api.users.messages.modify(
          {
            userId: 'me',
            id: row.ref,
            requestBody: add ? { addLabelIds: [label] } : { removeLabelIds: [label] },
          },
          other,
        );
      },
      async remove(row) {
        await api.users.messages.delete({ userId: 'me', id: row.ref }, other);
      },
      async deliver(raw) {
        await api.users.messages.insert(
          {
            userId: 'me',
            internalDateSource: 'dateHeader',
            requestBody: { raw: raw.toString('base64url'), labelIds: ['INBOX', 'UNREAD'] },
          },
          other,
        );
      },
      async deleteFolder(path) {
        await api.users.labels.delete({ userId: 'me', id: path }, other);
      },
      async expireChangeLog() {
        const { historyId } = (await api.users.getProfile({ userId: 'me' }, other)).data;
        google.expireHistoryBefore(historyId ?? '0');
      },
    },
    close: async () => {
      await nodes.close();
      await google.close();
    },
  };
}

/** One inbox of each kind, by name, for a test that runs the same agent on every kind of mailbox (`describe.each`). */
export const EVERY_MAILBOX: Readonly<Record<string, () => Promise<Backend>>> = {
  demo: demoBackend,
  'IMAP (Dovecot)': () => dovecotBackend(),
  Gmail: () => gmailBackend(),
  'Microsoft 365': () => graphBackend(),
};
