import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../rig/browser.ts';
import { expectToolError, expectToolOk, type ToolResult } from '../support/tool-caller.ts';
import { OTHER, startGmailApp, type GmailApp } from './gmail-app.ts';

// Issue 15's faults on a connected Gmail inbox: an expired history, rate limits and server errors, a revoked
// sign-in, polling for new mail; and no credential in any log line or tool result throughout.
describe('Gmail faults (emulate 0.12.2 + stub)', () => {
  let g: GmailApp;
  let browser: Browser;
  let inboxId = '';
  const results: ToolResult[] = [];
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await g.call(name, args);
    results.push(r);
    return r;
  };
  const subjects = async () => {
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 200 }));
    return (listed['messages'] as { subject: string }[]).map((m) => m.subject).sort();
  };

  beforeAll(async () => {
    [g, browser] = await Promise.all([startGmailApp({ pollSeconds: 1 }), launchBrowser()]);
    for (let n = 1; n <= 4; n++) await g.deliver(n, `Message ${String(n)}`);
    inboxId = await g.connect(browser);
    expectToolOk(await call('sync_inbox', { inboxId }));
  });

  afterAll(async () => {
    await browser.close();
    await g.close();
  });

  it('an expired history re-reads the window: nothing duplicated, nothing lost, every id an agent holds still good', async () => {
    expect(await subjects()).toEqual(['Message 1', 'Message 2', 'Message 3', 'Message 4']);
    const ids = async () =>
      Object.fromEntries(
        (
          expectToolOk(await call('list_messages', { inboxId, limit: 200 }))['messages'] as {
            subject: string;
            messageId: string;
          }[]
        ).map((m) => [m.subject, m.messageId]),
      );
    const held = await ids();
    // Meanwhile, elsewhere: one message archived, one new; then Gmail forgets the history we hold.
    const first = (await g.api.users.messages.list({ userId: 'me', q: 'subject:Message 1' }, OTHER)).data
      .messages?.[0];
    await g.api.users.messages.modify(
      { userId: 'me', id: first!.id!, requestBody: { removeLabelIds: ['INBOX'] } },
      OTHER,
    );
    await g.deliver(5, 'Message 5');
    const profile = (await (await fetch(`${g.google.url}/gmail/v1/users/me/profile`, OTHER)).json()) as {
      historyId: string;
    };
    g.google.expireHistoryBefore(profile.historyId);
    const synced = expectToolOk(await call('sync_inbox', { inboxId }));
    // Gmail's ids outlive its history: not a reset of the folder (decision 0045).
    expect(JSON.stringify(synced)).not.toMatch(/"reset":true/);
    expect(await subjects()).toEqual(['Message 2', 'Message 3', 'Message 4', 'Message 5']);
    const now = await ids();
    for (const subject of ['Message 2', 'Message 3', 'Message 4']) expect(now[subject]).toBe(held[subject]);
    expectToolOk(await call('get_message', { inboxId, messageId: held['Message 2'] }));
    // And the next sync is incremental again from the fresh history id.
    expect(JSON.stringify(expectToolOk(await call('sync_inbox', { inboxId })))).not.toMatch(/"reset":true/);
  });

  it('waits out a 429 for as long as Retry-After says, and retries a rate-limit 403', async () => {
    g.google.failNext(1, { status: 429, retryAfter: 1, path: /\/messages$/ });
    const before = g.google.requests.length;
    const found = expectToolOk(await call('search_mailbox', { inboxId, query: 'Message' }));
    expect((found['messages'] as unknown[]).length).toBeGreaterThan(0);
    const lists = g.google.requests.slice(before).filter((r) => /\/messages\?/.test(r.path));
    expect(lists.length).toBeGreaterThanOrEqual(2);
    expect(lists[1]!.at - lists[0]!.at).toBeGreaterThanOrEqual(950);

    g.google.failNext(2, { status: 403, reason: 'userRateLimitExceeded', path: /\/messages$/ });
    expectToolOk(await call('search_mailbox', { inboxId, query: 'Message' }));
  });

  it('a mailbox that keeps failing gives provider_error with a safe message', async () => {
    g.google.failNext(10, { status: 503, path: /\/messages$/ });
    const r = expectToolError(await call('search_mailbox', { inboxId, query: 'Message' }), 'provider_error');
    expect(String(r['message'])).not.toMatch(/Bearer|authorization|at .*\.ts|googleapis/i);
    // Three tries for a 5xx on a read, then the agent hears about it.
    expect(g.google.requests.filter((x) => /\/messages\?/.test(x.path)).length).toBeGreaterThanOrEqual(3);
    g.google.clearFaults();
    g.google.failNext(10, { status: 429, retryAfter: 120, path: /\/messages$/ });
    const limited = expectToolError(
      await call('search_mailbox', { inboxId, query: 'Message' }),
      'provider_error',
    );
    expect(String(limited['message'])).toMatch(/rate-limiting.*120 s/);
    g.google.clearFaults();
  });

  it('a refusal that is nobody’s sign-in says whose it is to fix, and marks nothing (decision 0138)', async () => {
    for (const [reason, words] of [
      ['accessNotConfigured', "the Gmail API is not enabled in this service's Google Cloud project"],
      ['domainPolicy', 'the Google Workspace administrators of this address do not let apps read its mail'],
      ['someNewReason', 'Gmail refused the search (HTTP 403 someNewReason)'],
      ['constructor', 'Gmail refused the search (HTTP 403 constructor)'],
    ] as const) {
      g.google.failNext(1, { status: 403, reason, path: /\/messages$/ });
      const r = expectToolError(
        await call('search_mailbox', { inboxId, query: 'Message' }),
        'provider_error',
      );
      expect(String(r['message'])).toContain(words);
    }
    expect(expectToolOk(await call('get_connection_status', { inboxId }))).toMatchObject({
      needsReconnect: false,
    });
  });

  it('new mail shows up by polling, one history request per poll while nothing changes', async () => {
    const fresh = 'Arrived by itself';
    // The poller started when the inbox connected (no scheduler tick here); nobody calls sync_inbox.
    const idleFrom = g.google.requests.length;
    await new Promise((r) => setTimeout(r, 2500));
    const idle = g.google.requests.slice(idleFrom).filter((r) => r.path.startsWith('/gmail/'));
    expect(idle.length).toBeGreaterThan(0);
    expect(idle.every((r) => r.method === 'GET' && /\/history\?/.test(r.path))).toBe(true);
    await g.deliver(9, fresh);
    await expect.poll(subjects, { timeout: 15_000, interval: 250 }).toContain(fresh);
  });

  it('a revoked sign-in marks the inbox needs_reconnect and a new link reconnects it', async () => {
    for (const token of g.google.refreshTokens())
      await fetch(`${g.google.url}/oauth2/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }).toString(),
      });
    // Nobody syncs: the poller's own refused request has the inbox say so within a few polls (decision 0095).
    await expect
      .poll(async () => expectToolOk(await call('get_connection_status', { inboxId })), {
        timeout: 15_000,
        interval: 250,
      })
      .toMatchObject({ needsReconnect: true });
    expectToolError(await call('sync_inbox', { inboxId }), 'needs_reconnect');
    const status = expectToolOk(await call('get_connection_status', { inboxId }));
    expect(status).toMatchObject({ needsReconnect: true });
    expect(JSON.stringify(status['agentOnly'])).toContain('start_google_oauth');
    const link = expectToolOk(await call('start_google_oauth', { inboxId }));
    expect(String(link['url'])).toContain('/o/oauth2/v2/auth?');
    const page = await (await browser.newContext()).newPage();
    await page.goto(link['url'] as string);
    await page.getByRole('button', { name: new RegExp(g.google.user.replaceAll('.', '\\.')) }).click();
    await page.waitForURL(/\/connect\/google\/callback/);
    await page.context().close();
    expect(expectToolOk(await call('get_connection_status', { inboxId }))).toMatchObject({
      needsReconnect: false,
    });
    expectToolOk(await call('sync_inbox', { inboxId }));
  });

  it('removing the inbox revokes its sign-in at Google', async () => {
    const account = await g.app.stores.accounts.findByEmail('owner@example.test');
    const before = g.google.requests.length;
    expect(await g.app.services.tools.inboxes.remove(account!.id, inboxId)).toBe(true);
    expect(
      g.google.requests.slice(before).some((r) => r.method === 'POST' && r.path === '/oauth2/revoke'),
    ).toBe(true);
  });

  it('never put a credential in a log line or a tool result', () => {
    const tokens = [...g.google.refreshTokens(), ...g.google.accessTokens()];
    expect(tokens.length).toBeGreaterThan(2);
    const seen = [g.logged.join('\n'), JSON.stringify(results.map((r) => r.raw))].join('\n');
    for (const t of tokens) expect(seen).not.toContain(t);
    expect(seen).not.toContain('test-client-secret');
  });
});
