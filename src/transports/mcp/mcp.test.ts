import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import type { AccountId } from '../../core/accounts/account.ts';
import type { InboxId } from '../../core/inboxes/inbox.ts';
import { newId } from '../../lib/random.ts';
import { connectClient, type ClientKind } from '../../../test/support/mcp-clients.ts';
import { call, createTestApp } from '../../../test/support/test-app.ts';
import { createKeyViaPage, invitedAccount, setUpOwner } from '../../../test/support/web-client.ts';

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function appWithKey(): Promise<{ app: App; key: string; accountId: AccountId }> {
  const a = await createTestApp();
  app = a;
  const key = await createKeyViaPage(await setUpOwner(a));
  const account = await a.stores.accounts.findByEmail('owner@example.test');
  return { app: a, key, accountId: account!.id };
}

async function addInbox(a: App, accountId: AccountId, label: string): Promise<InboxId> {
  const id = newId('inbox') as InboxId;
  await a.stores.inboxes.create({
    id,
    accountId,
    label,
    provider: 'imap',
    email: `${label}@example.test`,
    imapHost: 'imap.example.test',
    imapPort: 993,
    imapUser: null,
    smtpHost: 'smtp.example.test',
    smtpPort: 587,
    isDemo: false,
    connectionStatus: 'connected',
    createdAt: new Date(),
  });
  return id;
}

describe.each<ClientKind>(['v2-modern', 'v2-legacy', 'v1'])('official SDK client %s', (kind) => {
  it('connects with an API key, lists tools, calls a tool, and gets a tool error', async () => {
    const { app: a, key, accountId } = await appWithKey();
    await addInbox(a, accountId, 'work');
    const client = await connectClient(a, kind, key);
    expect(client.era()).toBe(kind === 'v2-modern' ? 'modern' : 'legacy');

    const { tools } = await client.listTools();
    const listInboxes = tools.find((t) => t.name === 'list_inboxes');
    expect(listInboxes?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });

    const ok = await client.callTool('list_inboxes');
    expect(ok.isError ?? false).toBe(false);
    const payload = ok.structuredContent as { inboxes: { label: string }[]; sayToHuman: string };
    expect(payload.inboxes.map((i) => i.label)).toEqual(['Demo inbox', 'work']);
    expect(payload.sayToHuman).toBe('2 inboxes, 2 connected.');
    expect(JSON.parse((ok.content as { text: string }[])[0]!.text)).toEqual(payload);

    const bad = await client.callTool('list_inboxes', { unexpected: 1 });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ error: 'invalid_arguments' });
    await client.close();
  });
});

describe('/mcp HTTP rules', () => {
  const challenge =
    'Bearer realm="mcp", resource_metadata="http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"';
  const post = (headers: Record<string, string>) => ({
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

  it('GET and DELETE → 405', async () => {
    app = await createTestApp();
    for (const method of ['GET', 'DELETE']) {
      const res = await call(app, '/mcp', { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it.each([
    ['no token', {}],
    ['a wrong key', { authorization: 'Bearer itk_nope' }],
    ['a wrong access token', { authorization: 'Bearer ita_nope' }],
    ['a malformed header', { authorization: 'Token abc' }],
  ])('%s → 401 invalid_token with the exact challenge', async (_label, headers) => {
    app = await createTestApp();
    const res = await call(app, '/mcp', post(headers));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(challenge);
    expect(await res.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('an Origin that is not allowed → 403; our own origin and no Origin are allowed', async () => {
    const { app: a, key } = await appWithKey();
    const auth = { authorization: `Bearer ${key}` };
    expect((await call(a, '/mcp', post({ ...auth, origin: 'https://evil.example' }))).status).toBe(403);
    expect((await call(a, '/mcp', post({ ...auth, origin: 'http://127.0.0.1:8787' }))).status).toBe(200);
    expect((await call(a, '/mcp', post(auth))).status).toBe(200);
  });

  it('a key of account A never sees account B’s inboxes', async () => {
    const { app: a, key, accountId } = await appWithKey();
    await addInbox(a, accountId, 'mine');
    await invitedAccount(a, 'other@example.test');
    const other = await a.stores.accounts.findByEmail('other@example.test');
    await addInbox(a, other!.id, 'theirs');
    const client = await connectClient(a, 'v2-modern', key);
    const result = await client.callTool('list_inboxes');
    expect(
      (result.structuredContent as { inboxes: { label: string }[] }).inboxes.map((i) => i.label),
    ).toEqual(['Demo inbox', 'mine']);
    await client.close();
  });

  it('records every tool call in the audit log, without arguments or secrets', async () => {
    const { app: a, key, accountId } = await appWithKey();
    const client = await connectClient(a, 'v2-legacy', key);
    await client.callTool('list_inboxes');
    await client.callTool('list_inboxes', { bogus: 'my secret text' });
    const entries = await a.stores.audit.recent(accountId, 10);
    expect(entries.map((e) => [e.tool, e.outcome, e.credentialKind])).toEqual([
      ['list_inboxes', 'invalid_arguments', 'api_key'],
      ['list_inboxes', 'ok', 'api_key'],
    ]);
    expect(JSON.stringify(entries)).not.toContain('my secret text');
    expect(JSON.stringify(entries)).not.toContain(key);
    await client.close();
  });
});

describe('Settings → Activity', () => {
  it('shows the person what agents did, by key name, and nothing of another account', async () => {
    const { app: a, key } = await appWithKey();
    const client = await connectClient(a, 'v2-modern', key);
    await client.callTool('list_inboxes');
    await client.callTool('list_inboxes', { nope: true });
    await client.close();
    const { WebClient } = await import('../../../test/support/web-client.ts');
    const owner = new WebClient(a);
    await owner.get('/signin');
    await owner.post('/signin', { email: 'owner@example.test', password: 'correct horse battery' });
    await owner.get('/settings/activity');
    expect(owner.lastHtml).toContain('Looked at your inboxes.');
    expect(owner.lastHtml).toMatch(/API key “agent”/);
    expect(owner.lastHtml).toContain('Looked at your inboxes: refused (invalid arguments).');
    const other = await invitedAccount(a, 'someone@example.test');
    await other.get('/settings/activity');
    expect(other.lastHtml).toContain('No agent activity yet.');
  });
});
