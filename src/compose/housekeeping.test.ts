import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { freshPgDatabase } from '../../test/rig/pg.ts';
import { eventually } from '../../test/support/eventually.ts';
import { recordingLogger } from '../../test/support/recording-logger.ts';
import { createTestApp } from '../../test/support/test-app.ts';
import { setUpOwner } from '../../test/support/web-client.ts';
import type { App } from '../app.ts';
import type { AccountId } from '../core/accounts/account.ts';
import type { AuditEntry } from '../core/audit/audit-log.ts';
import { newInbox } from '../core/inboxes/inbox-store.contract.ts';
import { newFolderId } from '../core/messages/folder-store.contract.ts';
import { newSummary } from '../core/messages/message-store.contract.ts';
import { newClient } from '../oauth/client/client-store.contract.ts';
import { authorizeQuery, REGISTRATION } from '../../test/support/oauth-code.ts';
import { fixedClock } from '../lib/clock.ts';
import { newId } from '../lib/random.ts';
import type { TokenRecord } from '../oauth/token/grant.ts';

const DAY = 86_400_000;

/** One agent call in the activity log. */
const activityRow = (accountId: AccountId, at: Date): AuditEntry => ({
  at,
  accountId,
  credentialKind: 'api_key',
  credentialId: 'key_x',
  clientId: null,
  tool: 'list_inboxes',
  inboxId: null,
  outcome: 'ok',
  undoId: null,
  durationMs: 1,
});

/** The sweep's line in the log, which it writes once it has removed what it removes. */
const sweptBy = (lines: string[]) =>
  eventually(
    'the sweep',
    () => Promise.resolve(lines.find((l) => l.includes('removed what has expired'))),
    10_000,
    50,
  );

// The hourly sweep (decision 0065), run as the service runs it: what has expired goes — sessions at their end, OAuth
// sign-ins 30 days after they were spent, PostgreSQL's request counters an hour after their window, screening verdicts
// 30 days after their message left the index — and what lives stays.
describe('the housekeeping sweep removes what has expired, and only that', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it.each(['SQLite', 'PostgreSQL'] as const)('on %s', async (engine) => {
    const clock = fixedClock(new Date());
    const recorded = recordingLogger();
    app = await createTestApp({
      ...(engine === 'PostgreSQL' && { pgUrl: await freshPgDatabase() }),
      config: { activityDays: 30 },
      overrides: { clock, log: recorded.log },
    });
    const a = app;
    await setUpOwner(a); // a browser session, for SESSION_DAYS (30)
    const account = (await a.stores.accounts.findByEmail('owner@example.test'))!.id;
    const signIn = async (at: Date) => {
      const grant = {
        id: newId('grant'),
        accountId: account,
        clientId: 'client_a',
        scope: ['mcp:tools'],
        resource: `${a.config.baseUrl}/mcp`,
        createdAt: at,
        lastUsedAt: null,
        revokedAt: null,
        powers: null,
        inboxes: null,
      };
      const token = (kind: TokenRecord['kind'], ms: number): TokenRecord => ({
        hash: newId('t'),
        kind,
        grantId: grant.id,
        createdAt: at,
        expiresAt: new Date(at.getTime() + ms),
      });
      const code = newId('code');
      await a.stores.grants.saveCode({
        codeHash: code,
        clientId: grant.clientId,
        accountId: account,
        redirectUri: 'http://127.0.0.1:9/callback',
        codeChallenge: 'x'.repeat(43),
        scope: grant.scope,
        resource: grant.resource,
        createdAt: at,
        expiresAt: new Date(at.getTime() + 60_000),
        powers: null,
        inboxes: null,
      });
      await a.stores.grants.createGrant(grant, [token('access', DAY / 24), token('refresh', 30 * DAY)], code);
      return grant.id;
    };
    const abandoned = await signIn(clock.now()); // never refreshed: its last token ends in 30 days
    // Client registrations, as anyone may make them (decision 0122): the one the sign-ins use, and one a stranger made
    // and began an authorization with but never signed in with.
    await a.stores.oauthClients.save({ ...newClient({ createdAt: clock.now() }), clientId: 'client_a' });
    const register = async () => {
      const res = await a.fetch(new Request(`${a.config.baseUrl}/oauth/register`, REGISTRATION));
      expect(res.status).toBe(201);
      return ((await res.json()) as { client_id: string }).client_id;
    };
    const strangers = await register();
    const authorize = authorizeQuery(strangers, `${a.config.baseUrl}/mcp`);
    expect((await a.fetch(new Request(`${a.config.baseUrl}/oauth/authorize?${authorize}`))).status).toBe(303);
    const requests = () => a.db.kysely.selectFrom('oauth_requests').select('client_id').execute();
    expect(await requests()).toEqual([{ client_id: strangers }]);
    // Junk screening's verdicts on two messages: one the index still holds, one it no longer does.
    const inbox = newInbox(account);
    await a.stores.inboxes.create(inbox);
    const [folder] = await a.stores.folders.replaceAll(
      inbox.id,
      [{ path: 'INBOX', name: 'Inbox', canonical: 'inbox' }],
      newFolderId,
    );
    const held = newSummary(inbox.id, folder!.id, 1);
    await a.stores.messages.upsertMany([held]);
    const verdict = (messageId: string) => ({
      accountId: account,
      inboxId: inbox.id,
      messageId,
      senderAddress: 'junk@spam.test',
      reason: 'blockedDomains: spam.test',
    });
    await a.stores.screenings.recordBlocked([verdict(held.id), verdict('msg_gone')], clock.now());
    const activity = (at: Date) => a.stores.audit.record(activityRow(account, at));
    await activity(clock.now()); // older than ACTIVITY_DAYS (30) by the sweep
    // Two triage passes, older than ACTIVITY_DAYS by the sweep: the first goes, the last of the inbox stays.
    const pass = async (summary: string) => {
      const at = clock.now();
      const until = new Date(at.getTime() + 60_000);
      await a.stores.leases.acquire(
        { inboxId: inbox.id, holder: 'key_a', agentLabel: 'tidy', startedAt: at, expiresAt: until },
        at,
      );
      await a.stores.leases.release(
        inbox.id,
        'key_a',
        'tidy',
        new Date(at.getTime() + 1000),
        summary,
        newId('pass'),
      );
    };
    await pass('first');
    clock.advance(5000);
    await pass('last');
    const signInAt = (at: Date) =>
      a.stores.signInHistory.record({
        at,
        accountId: account,
        kind: 'signed_in',
        ip: '::1',
        userAgent: null,
      });
    await signInAt(new Date(clock.now().getTime() - 30 * DAY)); // older than the history's 90 days by the sweep
    await signInAt(clock.now()); // 61 days old by then: kept
    // A passkey challenge spent: forgotten once it has ended (it could no longer be presented).
    await a.stores.passkeys.spendChallenge('ended', new Date(clock.now().getTime() + 60_000));
    // Requests from a client address: a counter row for each rule's window (the registration above counted per minute
    // and per hour, the page per minute).
    expect((await a.fetch(new Request(`${a.config.baseUrl}/signin`))).status).toBe(200);
    const counters = async () =>
      (await sql<{ key: string }>`SELECT key FROM rate_limits ORDER BY key`.execute(a.db.kysely)).rows.map(
        (r) => r.key,
      );
    const counted = await counters();
    expect(counted).toHaveLength(2);
    // And a client address that asked once in this minute and never again: its window ends, its row is swept.
    await sql`INSERT INTO rate_limits (key, points, expire) VALUES (${'anonymous:198.51.100.9'}, 1, ${
      clock.now().getTime() + 60_000
    })`.execute(a.db.kysely);

    // 61 days on: the session ended 31 days ago, the abandoned sign-in's tokens 31 days ago.
    clock.advance(61 * DAY);
    const live = await signIn(clock.now());
    const liveSession = newId('s');
    await a.stores.sessions.create({
      idHash: liveSession,
      accountId: account,
      createdAt: clock.now(),
      lastSeenAt: clock.now(),
      expiresAt: new Date(clock.now().getTime() + 30 * DAY),
      userAgent: null,
    });
    await activity(clock.now());
    const justRegistered = await register();
    await a.stores.passkeys.spendChallenge('live', new Date(clock.now().getTime() + 60_000));
    expect((await a.stores.grants.listGrants(account)).map((g) => g.id).sort()).toEqual(
      [abandoned, live].sort(),
    );

    // A deleted account's setting, written by a call that raced the deletion (decision 0117); the live account's stays.
    await a.stores.settings.set('acct_deleted0000000000000', 'sendEnabled', true, clock.now());
    await a.stores.settings.set(account, 'sendEnabled', true, clock.now());

    a.startBackground(); // the service's start: the sweep runs at once, then hourly
    await sweptBy(recorded.lines);
    expect((await a.stores.grants.listGrants(account)).map((g) => g.id)).toEqual([live]);
    const sessions = await a.db.kysely.selectFrom('sessions').select('id_hash').execute();
    expect(sessions.map((s) => s.id_hash)).toEqual([liveSession]);
    // Those counted again after the advance are in a window that has not ended (the service's clock): kept.
    expect(await counters()).toEqual(counted);
    expect((await a.stores.audit.recent(account, 10)).map((e) => e.at)).toEqual([clock.now()]);
    expect((await a.stores.signInHistory.recent(account, 10)).map((e) => e.at)).toEqual([
      new Date(clock.now().getTime() - 61 * DAY),
    ]);
    const challenges = await a.db.kysely.selectFrom('passkey_challenges_spent').select('hash').execute();
    expect(challenges.map((r) => r.hash)).toEqual(['live']);
    const verdicts = await a.db.kysely.selectFrom('screenings').select('message_id').execute();
    expect(verdicts.map((v) => v.message_id)).toEqual([held.id]);
    expect(await a.stores.settings.get('acct_deleted0000000000000', 'sendEnabled')).toBeUndefined();
    expect(await a.stores.settings.get(account, 'sendEnabled')).toBe(true);
    const passes = await a.db.kysely.selectFrom('triage_passes').select('summary').execute();
    expect(passes.map((p) => p.summary)).toEqual(['last']);
    expect(await requests()).toEqual([]);
    const clients = await a.db.kysely.selectFrom('oauth_clients').select('client_id').execute();
    expect(clients.map((c) => c.client_id).sort()).toEqual(['client_a', justRegistered].sort());
  });

  it('keeps the activity log for good with ACTIVITY_DAYS=0', async () => {
    const clock = fixedClock(new Date());
    const recorded = recordingLogger();
    app = await createTestApp({ config: { activityDays: 0 }, overrides: { clock, log: recorded.log } });
    const a = app;
    await setUpOwner(a); // its session ends in 30 days
    const account = (await a.stores.accounts.findByEmail('owner@example.test'))!.id;
    const old = clock.now();
    await a.stores.audit.record(activityRow(account, old));
    clock.advance(3650 * DAY);
    a.startBackground();
    const swept = await sweptBy(recorded.lines);
    expect(swept).toContain('"sessions":1');
    expect((await a.stores.audit.recent(account, 10)).map((e) => e.at)).toEqual([old]);
  });
});
