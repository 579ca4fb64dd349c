import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DemoMailbox } from '../../adapters/mail/demo/demo-mailbox.ts';
import type { App } from '../../app.ts';
import type { AccountId } from '../../core/accounts/account.ts';
import type { InboxId } from '../../core/inboxes/inbox.ts';
import { fixedClock } from '../../lib/clock.ts';
import { silentLogger } from '../../lib/logger.ts';
import { listen, type RunningServer } from '../http/serve.ts';
import { freePort, startDovecot, type Dovecot } from '../../../test/rig/index.ts';
import { inProcessFetch } from '../../../test/support/mcp-clients.ts';
import { TestOAuthProvider } from '../../../test/support/oauth-client.ts';
import { connectImapInbox, imapClient, mailboxState } from '../../../test/support/imap-inbox.ts';
import {
  bearer,
  call,
  createTestApp,
  expectError,
  TEST_RATE_LIMITS,
} from '../../../test/support/test-app.ts';
import { agentOn, toolCaller } from '../../../test/support/tool-caller.ts';
import { wholeAccount } from '../../core/auth/inbox-reach.ts';
import {
  createKeyViaPage,
  invitedAccount,
  setUpOwner,
  type WebClient,
} from '../../../test/support/web-client.ts';

// `POST /api/inboxes/{id}/draft` (contract §2 Draft, §4.1, §7), end to end through the real app: the agent gate,
// the route, the draft service, and the mailbox it writes to (the demo mailbox in SQL, or Dovecot over IMAP).

const OWNER = 'owner@example.test';
const DRAFT_KEYS = [
  'createdAt',
  'id',
  'isDemo',
  'provider',
  'providerDraftId',
  'subject',
  'text',
  'threadId',
  'to',
];
const NOT_FOUND = 'No inbox with this id on this account. GET /api/inboxes lists them.';
const NOT_JSON_TYPE = 'Send the draft as JSON with Content-Type: application/json.';
const NOT_JSON = 'The body is not valid UTF-8 JSON.';
const NOT_OBJECT = 'The body must be a JSON object with to, subject and text.';
const missing = (fields: string) => `Missing or not a string: ${fields}. to, subject and text are required.`;

const VALID = {
  to: 'sam@example.test',
  subject: 'Lunch on Friday?',
  text: 'Hi Sam,\nare you free on Friday?',
};

/** Posts a draft. `body` is JSON-encoded unless `raw` is given; `contentType: null` sends no Content-Type at all. */
function postDraft(
  app: App,
  key: string | undefined,
  inboxId: string,
  body: unknown,
  opts: { contentType?: string | null; raw?: BodyInit; authorization?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (opts.authorization !== undefined) headers['authorization'] = opts.authorization;
  else if (key !== undefined) headers['authorization'] = `Bearer ${key}`;
  const type = opts.contentType === undefined ? 'application/json' : opts.contentType;
  if (type !== null) headers['content-type'] = type;
  // A Uint8Array body carries no implicit Content-Type (a string body would get text/plain).
  const payload = opts.raw ?? new TextEncoder().encode(JSON.stringify(body));
  return call(app, `/api/inboxes/${inboxId}/draft`, { method: 'POST', headers, body: payload });
}

interface DraftBody {
  id: string;
  to: string;
  subject: string;
  text: string;
  provider: string;
  providerDraftId: string | null;
  threadId: string | null;
  isDemo: boolean;
  createdAt: string;
}

async function expectDraft(res: Response): Promise<DraftBody> {
  expect(res.status).toBe(201);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as DraftBody;
  expect(Object.keys(body).sort()).toEqual(DRAFT_KEYS);
  return body;
}

/** The account's one demo inbox, as GET /api/inboxes lists it. */
async function demoInboxId(app: App, key: string): Promise<string> {
  const res = await call(app, '/api/inboxes', bearer(key));
  expect(res.status).toBe(200);
  const { inboxes } = (await res.json()) as {
    inboxes: { id: string; provider: string; isDemo: boolean }[];
  };
  const demo = inboxes.filter((i) => i.isDemo);
  expect(demo).toHaveLength(1);
  expect(demo[0]!.provider).toBe('google');
  return demo[0]!.id;
}

interface Demo {
  app: App;
  web: WebClient;
  key: string;
  inboxId: string;
  accountId: AccountId;
}

async function demoApp(opts: Parameters<typeof createTestApp>[0] = {}): Promise<Demo> {
  const app = await createTestApp(opts);
  const web = await setUpOwner(app);
  const key = await createKeyViaPage(web);
  const inboxId = await demoInboxId(app, key);
  const account = await app.stores.accounts.findByEmail(OWNER);
  return { app, web, key, inboxId, accountId: account!.id };
}

const demoDrafts = (app: App, inboxId: string) => new DemoMailbox(app.db, inboxId).rows('Drafts');

/** What a refused request must leave alone: the demo mailbox's Drafts folder and the stored drafts. */
async function written(app: App, inboxId: string): Promise<{ mailbox: number[]; stored: string[] }> {
  const mailbox = (await demoDrafts(app, inboxId)).map((r) => r.uid).sort((a, b) => a - b);
  const stored = (await app.db.kysely.selectFrom('drafts').select('id').execute()).map((r) => r.id).sort();
  return { mailbox, stored };
}

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('201 Created on the demo inbox (contract §2 Draft, §4.1)', () => {
  const NOW = new Date('2030-03-04T05:06:07.089Z');

  it('answers exactly the draft object and writes the draft into the demo Drafts folder', async () => {
    const d = await demoApp({ overrides: { clock: fixedClock(NOW) } });
    app = d.app;
    const before = await demoDrafts(app, d.inboxId);

    const draft = await expectDraft(await postDraft(app, d.key, d.inboxId, VALID));
    expect(draft).toEqual({
      id: expect.stringMatching(/^draft_[a-z0-9]{20}$/) as unknown,
      to: 'sam@example.test',
      subject: 'Lunch on Friday?',
      text: 'Hi Sam,\nare you free on Friday?',
      provider: 'google',
      providerDraftId: expect.any(String) as unknown,
      threadId: null,
      isDemo: true,
      createdAt: NOW.toISOString(),
    });

    const after = await demoDrafts(app, d.inboxId);
    expect(after).toHaveLength(before.length + 1);
    const added = after.filter((r) => !before.some((b) => b.uid === r.uid));
    expect(added).toHaveLength(1);
    const row = added[0]!;
    expect(draft.providerDraftId).toBe(String(row.uid));
    expect(row.flags).toContain('\\Draft');
    expect(row.doc.subject).toBe('Lunch on Friday?');
    expect(row.doc.to.map((a) => a.address)).toEqual(['sam@example.test']);
    expect(row.doc.text).toContain('are you free on Friday?');

    const stored = await app.services.tools.drafts.get(wholeAccount(d.accountId), draft.id);
    expect(stored).toMatchObject({
      inboxId: d.inboxId,
      to: 'sam@example.test',
      providerDraftId: String(row.uid),
    });
  });

  it('with a threadId from a fetched message: the threadId echoes back and the draft replies in that thread', async () => {
    const d = await demoApp();
    app = d.app;
    const tool = toolCaller(app, d.key);
    expect((await tool('sync_inbox', { inboxId: d.inboxId })).isError).toBe(false);
    const listed = await tool('list_messages', { inboxId: d.inboxId, limit: 1 });
    const newest = (listed.body['messages'] as { messageId: string }[])[0]!;
    const fetched = await tool('get_message', { inboxId: d.inboxId, messageId: newest.messageId });
    const threadId = fetched.body['threadId'] as string;
    const replyTo = fetched.body['internetMessageId'] as string;
    expect(typeof threadId).toBe('string');
    expect(replyTo).toMatch(/^<.+>$/);
    const before = await demoDrafts(app, d.inboxId);

    const draft = await expectDraft(
      await postDraft(app, d.key, d.inboxId, { ...VALID, subject: 'Re: lunch', threadId }),
    );
    expect(draft).toMatchObject({ threadId, provider: 'google', isDemo: true, subject: 'Re: lunch' });

    const added = (await demoDrafts(app, d.inboxId)).filter((r) => !before.some((b) => b.uid === r.uid));
    expect(added.map((r) => String(r.uid))).toEqual([draft.providerDraftId]);
    expect(added[0]!.doc.inReplyTo).toBe(replyTo);
    expect(added[0]!.doc.references).toContain(replyTo);
  });

  it('accepts a Content-Type with a charset parameter, and exactly 50 recipients', async () => {
    const d = await demoApp();
    app = d.app;
    const fifty = Array.from({ length: 50 }, (_, i) => `r${String(i)}@example.test`);
    const draft = await expectDraft(
      await postDraft(
        app,
        d.key,
        d.inboxId,
        { ...VALID, to: fifty.join(', ') },
        {
          contentType: 'application/json; charset=utf-8',
        },
      ),
    );
    expect(draft.to).toBe(fifty.join(', '));
    const row = (await demoDrafts(app, d.inboxId)).find((r) => String(r.uid) === draft.providerDraftId);
    expect(row?.doc.to.map((a) => a.address)).toEqual(fifty);
  });
});

describe('the activity log (decision 0059)', () => {
  it('records each call as its MCP twin is recorded: who, which inbox, the outcome', async () => {
    const d = await demoApp();
    app = d.app;
    expect((await postDraft(app, d.key, d.inboxId, VALID)).status).toBe(201);
    expect(
      (await postDraft(app, d.key, d.inboxId, { ...VALID, subject: 'a\r\nBcc: x@example.test' })).status,
    ).toBe(400);
    expect((await postDraft(app, d.key, d.inboxId, { to: 'a@example.test' })).status).toBe(400);
    const keyId = (await app.stores.audit.recent(d.accountId, 10)).find(
      (e) => e.tool === 'list_inboxes',
    )?.credentialId;
    expect(keyId).toMatch(/.+/);
    const rows = (await app.stores.audit.recent(d.accountId, 10)).map((e) => ({
      tool: e.tool,
      kind: e.credentialKind,
      credentialId: e.credentialId,
      inboxId: e.inboxId,
      outcome: e.outcome,
    }));
    const by = { kind: 'api_key', credentialId: keyId };
    expect(rows).toEqual([
      { tool: 'create_draft', ...by, inboxId: d.inboxId, outcome: 'invalid_request' },
      { tool: 'create_draft', ...by, inboxId: d.inboxId, outcome: 'draft_failed' },
      { tool: 'create_draft', ...by, inboxId: d.inboxId, outcome: 'ok' },
      { tool: 'list_inboxes', ...by, inboxId: null, outcome: 'ok' }, // demoApp's own GET /api/inboxes
    ]);
  });

  it('withholds the inbox list when its row cannot be written; a draft written is still answered', async () => {
    const d = await demoApp();
    app = d.app;
    const audit = app.stores.audit;
    const record = audit.record.bind(audit);
    audit.record = () => Promise.reject(new Error('disk full'));
    try {
      const list = await call(app, '/api/inboxes', bearer(d.key));
      expect(list.status).toBe(500);
      expect(await list.json()).toEqual({
        error: 'internal_error',
        error_description:
          'The answer could not be written to the activity log, so it is withheld. Try again later.',
      });
      expect((await postDraft(app, d.key, d.inboxId, VALID)).status).toBe(201);
    } finally {
      audit.record = record;
    }
  });
});

describe('401 (contract §7)', () => {
  it('no Authorization → 401 missing_api_key; nothing is written', async () => {
    const d = await demoApp();
    app = d.app;
    const before = await written(app, d.inboxId);
    const res = await postDraft(app, undefined, d.inboxId, VALID);
    await expectError(res, 401, 'missing_api_key');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api"');
    expect(await written(app, d.inboxId)).toEqual(before);
  });

  it.each([
    'Bearer itk_wrong',
    `Bearer itk_${'a'.repeat(40)}`,
    'Bearer ita_accesstoken',
    'Basic Zm9vOmJhcg==',
  ])(
    'a wrong key (%s) → 401 invalid_api_key with the challenge, pointing to Settings > Advanced',
    async (authorization) => {
      const d = await demoApp();
      app = d.app;
      const before = await written(app, d.inboxId);
      const res = await postDraft(app, undefined, d.inboxId, VALID, { authorization });
      const description = await expectError(res, 401, 'invalid_api_key');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
      expect(description).toContain('Settings > Advanced');
      expect(await written(app, d.inboxId)).toEqual(before);
    },
  );

  it('a real OAuth access token (ita_), valid on /mcp, → 401 invalid_api_key on /api (contract §5)', async () => {
    const d = await demoApp();
    app = d.app;
    const a = app;
    const serverUrl = new URL('/mcp', a.config.baseUrl);
    const fetch = inProcessFetch(a);
    const provider = new TestOAuthProvider();
    const client = new Client({ name: 'test-harness', version: '1.0.0' });
    await expect(
      client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    // The person approves on the consent page, signed in as the owner.
    const authUrl = provider.authUrl!;
    const start = await d.web.get(authUrl.pathname + authUrl.search);
    const consent = start.headers.get('location')!;
    await d.web.get(consent);
    const requestId = new URL(consent, a.config.baseUrl).searchParams.get('request')!;
    const done = await d.web.post('/oauth/consent', { request: requestId, decision: 'approve' });
    const callback = new URL(done.headers.get('location')!);
    await new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, fetch }).finishAuth(
      callback.searchParams,
    );
    const token = provider.tokensValue!.access_token;
    expect(token).toMatch(/^ita_/);
    // The token is good: the agent reaches its tools with it.
    expect((await toolCaller(a, token)('list_inboxes')).isError).toBe(false);

    const before = await written(a, d.inboxId);
    const res = await postDraft(a, token, d.inboxId, VALID);
    await expectError(res, 401, 'invalid_api_key');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
    expect(await written(a, d.inboxId)).toEqual(before);
  });

  it('a revoked key → 401 invalid_api_key on the very next draft', async () => {
    const d = await demoApp();
    app = d.app;
    await expectDraft(await postDraft(app, d.key, d.inboxId, VALID));
    const [stored] = await app.stores.apiKeys.list(d.accountId);
    await d.web.get('/settings/advanced');
    await d.web.post(`/settings/advanced/keys/${stored!.id}/revoke`, {});
    const before = await written(app, d.inboxId);
    const res = await postDraft(app, d.key, d.inboxId, VALID);
    await expectError(res, 401, 'invalid_api_key');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
    expect(await written(app, d.inboxId)).toEqual(before);
  });
});

describe('400 invalid_request and 400 draft_failed (contract §7): nothing is written', () => {
  let shared: Demo;
  beforeAll(async () => {
    shared = await demoApp();
  });
  afterAll(async () => {
    await shared.app.close();
  });

  const bytes = (s: string) => new TextEncoder().encode(s);
  const json = (v: unknown) => bytes(JSON.stringify(v));
  const { to, subject, text } = VALID;

  it.each<[string, { raw: BodyInit; contentType?: string | null }, string]>([
    ['to missing', { raw: json({ subject, text }) }, missing('to')],
    ['subject missing', { raw: json({ to, text }) }, missing('subject')],
    ['text missing', { raw: json({ to, subject }) }, missing('text')],
    ['all three missing (empty object)', { raw: json({}) }, missing('to, subject, text')],
    ['to a number', { raw: json({ to: 42, subject, text }) }, missing('to')],
    ['to an array of addresses', { raw: json({ to: [to], subject, text }) }, missing('to')],
    ['subject null', { raw: json({ to, subject: null, text }) }, missing('subject')],
    ['text an object', { raw: json({ to, subject, text: { plain: text } }) }, missing('text')],
    ['text a boolean', { raw: json({ to, subject, text: true }) }, missing('text')],
    [
      'threadId a number',
      { raw: json({ to, subject, text, threadId: 7 }) },
      'threadId must be a string from a fetched message.',
    ],
    ['body not JSON', { raw: bytes(`{"to": "${to}", "subject": `) }, NOT_JSON],
    ['body empty', { raw: bytes('') }, NOT_JSON],
    ['body not UTF-8', { raw: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) }, NOT_JSON],
    ['body a JSON array', { raw: json([{ to, subject, text }]) }, NOT_OBJECT],
    ['body JSON null', { raw: json(null) }, NOT_OBJECT],
    ['body a JSON string', { raw: json('hello') }, NOT_OBJECT],
    ['Content-Type text/plain', { raw: json(VALID), contentType: 'text/plain' }, NOT_JSON_TYPE],
    [
      'Content-Type form-urlencoded',
      { raw: bytes(new URLSearchParams(VALID).toString()), contentType: 'application/x-www-form-urlencoded' },
      NOT_JSON_TYPE,
    ],
    ['Content-Type application/jsonp', { raw: json(VALID), contentType: 'application/jsonp' }, NOT_JSON_TYPE],
    ['no Content-Type', { raw: json(VALID), contentType: null }, NOT_JSON_TYPE],
  ])('%s → 400 invalid_request', async (_name, opts, description) => {
    const { app: a, key, inboxId } = shared;
    const before = await written(a, inboxId);
    const res = await postDraft(a, key, inboxId, undefined, opts);
    expect(await expectError(res, 400, 'invalid_request')).toBe(description);
    expect(await written(a, inboxId)).toEqual(before);
  });

  const LINE_BREAK_TO = 'To contains a line break or control character.';
  const LINE_BREAK_SUBJECT = 'Subject contains a line break or control character.';
  const fiftyOne = Array.from({ length: 51 }, (_, i) => `r${String(i)}@example.test`).join(', ');

  it.each<[string, Record<string, unknown>, string]>([
    ['CRLF and a Bcc header in To', { ...VALID, to: 'a@b.test\r\nBcc: x@y.test' }, LINE_BREAK_TO],
    ['LF alone in To', { ...VALID, to: 'a@b.test\nBcc: x@y.test' }, LINE_BREAK_TO],
    ['CR alone in To', { ...VALID, to: 'a@b.test\rBcc: x@y.test' }, LINE_BREAK_TO],
    ['NUL in To', { ...VALID, to: 'a@b.test\u0000' }, LINE_BREAK_TO],
    ['CRLF and a Bcc header in Subject', { ...VALID, subject: 'Hello\r\nBcc: x@y.test' }, LINE_BREAK_SUBJECT],
    ['LF alone in Subject', { ...VALID, subject: 'Hello\nBcc: x@y.test' }, LINE_BREAK_SUBJECT],
    [
      'an invalid address',
      { ...VALID, to: 'not-an-address' },
      '“not-an-address” is not a valid email address.',
    ],
    ['51 recipients', { ...VALID, to: fiftyOne }, 'To has more than 50 recipients.'],
    [
      'a name that shows another address',
      { ...VALID, to: '"ceo@corp.test" <someone@elsewhere.test>' },
      'The name “ceo@corp.test” shows the address ceo@corp.test, but the mail goes to someone@elsewhere.test; write the person’s name, or leave the name out.',
    ],
    [
      'a threadId that is no thread of this inbox',
      { ...VALID, threadId: 'no-such-thread@example.test' },
      'threadId is not a thread in this inbox. Use the threadId of a message in this inbox.',
    ],
  ])('%s → 400 draft_failed with the reason', async (_name, body, reason) => {
    const { app: a, key, inboxId } = shared;
    const before = await written(a, inboxId);
    const res = await postDraft(a, key, inboxId, body);
    expect(await expectError(res, 400, 'draft_failed')).toBe(reason);
    expect(await written(a, inboxId)).toEqual(before);
  });

  it('the same requests, corrected, are written (so the checks above can see a write)', async () => {
    const { app: a, key, inboxId } = shared;
    const before = await written(a, inboxId);
    const draft = await expectDraft(await postDraft(a, key, inboxId, { ...VALID, to: 'a@b.test' }));
    const after = await written(a, inboxId);
    expect(after.mailbox).toEqual([...before.mailbox, Number(draft.providerDraftId)]);
    expect(after.stored).toEqual([...before.stored, draft.id].sort());
  });
});

describe('404 inbox_not_found (contract §7)', () => {
  it.each([
    ['an unknown well-formed id', 'inbox_aaaaaaaaaaaaaaaaaaaa'],
    ['a malformed id', 'not-an-inbox'],
    ['an id in capitals', 'INBOX_AAAAAAAAAAAAAAAAAAAA'],
    ['an id one character too long', 'inbox_aaaaaaaaaaaaaaaaaaaaa'],
    ['an encoded path', 'inbox_aaaaaaaaaaaaaaaaaaaa%2F..'],
  ])('%s → 404 inbox_not_found; nothing is written', async (_name, id) => {
    const d = await demoApp();
    app = d.app;
    const before = await written(app, d.inboxId);
    const res = await postDraft(app, d.key, id, VALID);
    expect(await expectError(res, 404, 'inbox_not_found')).toBe(NOT_FOUND);
    expect(await written(app, d.inboxId)).toEqual(before);
  });

  // Found by the HTTP fuzz (seed 444215, on the MCP side): an inbox removed between the route's check and the draft's
  // row was a 500 with a stack in the log.
  it('an inbox removed while the draft is written → 404 inbox_not_found, not a failure of the service', async () => {
    const d = await demoApp();
    app = d.app;
    const drafts = app.stores.drafts;
    const create = drafts.create.bind(drafts);
    drafts.create = async (draft) => {
      await d.app.stores.inboxes.delete(draft.accountId, draft.inboxId);
      return create(draft);
    };
    const res = await postDraft(app, d.key, d.inboxId, VALID);
    expect(await expectError(res, 404, 'inbox_not_found')).toBe('The inbox was removed while this call ran.');
  });

  it('an inbox of another account is not found, exactly like an unknown one; neither mailbox changes', async () => {
    const d = await demoApp();
    app = d.app;
    const otherWeb = await invitedAccount(app, 'other@example.test');
    const otherKey = await createKeyViaPage(otherWeb);
    const otherInbox = await demoInboxId(app, otherKey);
    expect(otherInbox).not.toBe(d.inboxId);
    const mine = await written(app, d.inboxId);
    const theirs = await written(app, otherInbox);

    const foreign = await postDraft(app, d.key, otherInbox, VALID);
    expect(await expectError(foreign, 404, 'inbox_not_found')).toBe(NOT_FOUND);
    const back = await postDraft(app, otherKey, d.inboxId, VALID);
    expect(await expectError(back, 404, 'inbox_not_found')).toBe(NOT_FOUND);
    expect(await written(app, d.inboxId)).toEqual(mine);
    expect(await written(app, otherInbox)).toEqual(theirs);

    // The ids are real: each owner can write a draft into their own inbox.
    expect((await expectDraft(await postDraft(app, otherKey, otherInbox, VALID))).isDemo).toBe(true);
    expect((await demoDrafts(app, otherInbox)).length).toBe(theirs.mailbox.length + 1);
  });
});

describe('409 (contract §7)', () => {
  it('the person paused the inbox → 409 inbox_paused; nothing is written; resumed, it works again', async () => {
    const d = await demoApp();
    app = d.app;
    await d.web.get('/inboxes');
    expect((await d.web.post(`/inboxes/${d.inboxId}/pause`, {})).status).toBe(303);
    const before = await written(app, d.inboxId);
    const res = await postDraft(app, d.key, d.inboxId, VALID);
    expect(await expectError(res, 409, 'inbox_paused')).toBe(
      'The person paused this inbox; they can resume it on the Inboxes page.',
    );
    expect(await written(app, d.inboxId)).toEqual(before);

    await d.web.get('/inboxes');
    expect((await d.web.post(`/inboxes/${d.inboxId}/resume`, {})).status).toBe(303);
    await expectDraft(await postDraft(app, d.key, d.inboxId, VALID));
  });

  const NOT_CONNECTED =
    'The inbox has no working credential; the person connects it on the Inboxes page first.';

  async function addedImapInbox(): Promise<{ d: Demo; inboxId: string }> {
    const d = await demoApp();
    app = d.app;
    const added = await toolCaller(app, d.key)('add_inbox', {
      label: 'Work',
      provider: 'imap',
      email: 'me@example.test',
      imapHost: '127.0.0.1',
      imapPort: 1,
    });
    expect(added.isError).toBe(false);
    const inbox = added.body['inbox'] as { id: string; connectionStatus: string };
    expect(inbox.connectionStatus).toBe('not_connected');
    return { d, inboxId: inbox.id };
  }

  it('an IMAP inbox added but never connected → 409 not_connected; no draft is stored', async () => {
    const { d, inboxId } = await addedImapInbox();
    const before = await written(d.app, d.inboxId);
    const res = await postDraft(d.app, d.key, inboxId, VALID);
    expect(await expectError(res, 409, 'not_connected')).toBe(NOT_CONNECTED);
    expect(await written(d.app, d.inboxId)).toEqual(before);
  });

  it('an inbox whose credential the mailbox refused (needs reconnect) → 409 not_connected', async () => {
    const { d, inboxId } = await addedImapInbox();
    const inbox = await d.app.stores.inboxes.get(d.accountId, inboxId as InboxId);
    await d.app.services.tools.inboxes.markNeedsReconnect(inbox!, 'AUTHENTICATIONFAILED', d.app.clock.now());
    const before = await written(d.app, d.inboxId);
    const res = await postDraft(d.app, d.key, inboxId, VALID);
    expect(await expectError(res, 409, 'not_connected')).toBe(NOT_CONNECTED);
    expect(await written(d.app, d.inboxId)).toEqual(before);
  });
});

describe('402 payment_required (contract §7)', () => {
  it('after the trial ends, and when payment failed; nothing is written', async () => {
    const clock = fixedClock(new Date('2030-01-01T00:00:00Z'));
    const d = await demoApp({ overrides: { clock } });
    app = d.app;
    await expectDraft(await postDraft(app, d.key, d.inboxId, VALID));
    clock.advance(14 * 86_400_000);
    const before = await written(app, d.inboxId);
    const ended = await postDraft(app, d.key, d.inboxId, VALID);
    expect(await expectError(ended, 402, 'payment_required')).toContain('trial ended on 2030-01-15');
    expect(await written(app, d.inboxId)).toEqual(before);

    await app.services.accounts.setPlan(OWNER, 'pro', { payment: 'failed' });
    const failed = await postDraft(app, d.key, d.inboxId, VALID);
    expect(await expectError(failed, 402, 'payment_required')).toContain('payment');
    expect(await written(app, d.inboxId)).toEqual(before);

    await app.services.accounts.setPlan(OWNER, 'pro', { payment: 'ok' });
    await expectDraft(await postDraft(app, d.key, d.inboxId, VALID));
  });
});

describe('429 rate_limited (contract §7)', () => {
  it('per API key, with Retry-After; the refused draft is not written', async () => {
    const d = await demoApp({
      config: {
        rateLimits: { ...TEST_RATE_LIMITS, apiPerMinute: 3 },
      },
    });
    app = d.app;
    // demoApp spent one request on GET /api/inboxes.
    await expectDraft(await postDraft(app, d.key, d.inboxId, VALID));
    await expectDraft(await postDraft(app, d.key, d.inboxId, VALID));
    const before = await written(app, d.inboxId);
    const res = await postDraft(app, d.key, d.inboxId, VALID);
    const description = await expectError(res, 429, 'rate_limited');
    const retryAfter = res.headers.get('retry-after');
    expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(description).toBe(`Too many requests. Try again in ${retryAfter!} seconds.`);
    expect(await written(app, d.inboxId)).toEqual(before);
  });
});

describe('413 request_too_large (contract §7, body over 1,000,000 bytes)', () => {
  const TOO_LARGE = 'The body is larger than 1000000 bytes.';
  /** A valid draft whose JSON encoding is exactly `size` bytes (ASCII text). */
  const ofSize = (size: number) => {
    const empty = JSON.stringify({ ...VALID, text: '' }).length;
    const body = JSON.stringify({ ...VALID, text: 'x'.repeat(size - empty) });
    expect(Buffer.byteLength(body)).toBe(size);
    return body;
  };

  it('1,000,001 bytes → 413; exactly 1,000,000 bytes is read and judged (text too long → draft_failed)', async () => {
    const d = await demoApp();
    app = d.app;
    const before = await written(app, d.inboxId);
    const big = await postDraft(app, d.key, d.inboxId, undefined, {
      raw: new TextEncoder().encode(ofSize(1_000_001)),
    });
    expect(await expectError(big, 413, 'request_too_large')).toBe(TOO_LARGE);
    const edge = await postDraft(app, d.key, d.inboxId, undefined, {
      raw: new TextEncoder().encode(ofSize(1_000_000)),
    });
    expect(await expectError(edge, 400, 'draft_failed')).toBe('The text is longer than 200000 characters.');
    expect(await written(app, d.inboxId)).toEqual(before);
  });

  it('over real HTTP: with a Content-Length and streamed without one → 413; nothing is written', async () => {
    const port = await freePort();
    const d = await demoApp({
      config: { baseUrl: `http://127.0.0.1:${String(port)}`, mcpAllowedOrigins: [] },
    });
    app = d.app;
    const server: RunningServer = await listen(app.fetch, { host: '127.0.0.1', port, log: silentLogger });
    try {
      const url = `http://127.0.0.1:${String(port)}/api/inboxes/${d.inboxId}/draft`;
      const headers = { authorization: `Bearer ${d.key}`, 'content-type': 'application/json' };
      const before = await written(app, d.inboxId);
      const body = ofSize(1_000_001);

      const declared = await fetch(url, { method: 'POST', headers, body });
      expect(await expectError(declared, 413, 'request_too_large')).toBe(TOO_LARGE);

      const chunks = [body.slice(0, 500_000), body.slice(500_000)].map((s) => new TextEncoder().encode(s));
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(next);
        },
      });
      const streamed = await fetch(url, {
        method: 'POST',
        headers,
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(await expectError(streamed, 413, 'request_too_large')).toBe(TOO_LARGE);
      expect(await written(app, d.inboxId)).toEqual(before);

      // The same server writes a normal draft.
      await expectDraft(await fetch(url, { method: 'POST', headers, body: JSON.stringify(VALID) }));
    } finally {
      await server.close(1000);
    }
  });
});

describe('an IMAP inbox on Dovecot', () => {
  let dovecot: Dovecot;
  let imapApp: App;
  let key: string;
  let inboxId: string;
  const USER = 'dana';
  const PASSWORD = 'dana-imap-password';
  const state = () => mailboxState(dovecot, USER, PASSWORD);

  beforeAll(async () => {
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    imapApp = await createTestApp();
    const agent = await agentOn(imapApp);
    key = agent.key;
    inboxId = await connectImapInbox(imapApp, agent.call, { dovecot, user: USER, password: PASSWORD });
  }, 120_000);

  afterAll(async () => {
    await imapApp.close();
    await dovecot.stop();
  });

  it('201 with provider imap, isDemo false; providerDraftId is the UID of the draft in Dovecot’s Drafts', async () => {
    const before = await state();
    const subject = 'Quarterly numbers';
    const draft = await expectDraft(
      await postDraft(imapApp, key, inboxId, { to: 'Pat Doe <pat@example.test>', subject, text: 'See you.' }),
    );
    expect(draft).toEqual({
      id: expect.stringMatching(/^draft_[a-z0-9]{20}$/) as unknown,
      to: '"Pat Doe" <pat@example.test>',
      subject,
      text: 'See you.',
      provider: 'imap',
      providerDraftId: expect.stringMatching(/^[1-9][0-9]*$/) as unknown,
      threadId: null,
      isDemo: false,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
    });
    expect(new Date(draft.createdAt).toISOString()).toBe(draft.createdAt);

    const after = await state();
    expect(after.filter((r) => !before.includes(r))).toHaveLength(1);
    expect(after.filter((r) => !before.includes(r))[0]).toMatch(/^Drafts \| /);

    const imap = await imapClient(dovecot, USER, PASSWORD);
    const lock = await imap.getMailboxLock('Drafts');
    try {
      const m = await imap.fetchOne(
        draft.providerDraftId!,
        { uid: true, flags: true, envelope: true },
        { uid: true },
      );
      if (m === false || m === undefined) throw new Error(`no UID ${draft.providerDraftId!} in Drafts`);
      expect(String(m.uid)).toBe(draft.providerDraftId);
      expect([...(m.flags ?? [])]).toContain('\\Draft');
      expect(m.envelope?.subject).toBe(subject);
      expect(m.envelope?.to?.map((a) => [a.name, a.address])).toEqual([['Pat Doe', 'pat@example.test']]);
    } finally {
      lock.release();
      await imap.logout();
    }
  });

  it('a refused draft (a Bcc injected into To) leaves the Dovecot mailbox exactly as it was', async () => {
    const before = await state();
    const res = await postDraft(imapApp, key, inboxId, { ...VALID, to: 'a@b.test\r\nBcc: x@y.test' });
    expect(await expectError(res, 400, 'draft_failed')).toBe(
      'To contains a line break or control character.',
    );
    expect(await state()).toEqual(before);
  });
});
