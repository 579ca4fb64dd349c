import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { dkimSigner, ONE_CLICK_HEADERS } from '../rig/dkim-fixtures.ts';
import { startHttpsSink, startTripwire, testTls, type HttpsSink, type Tripwire } from '../rig/https-sink.ts';
import { buildMessage, seedMaildir, startDovecot, type Dovecot } from '../rig/index.ts';
import type { ListSpec } from '../rig/message-builder.ts';
import { connectImapInbox } from '../support/imap-inbox.ts';
import { createTestApp, NO_RATE_LIMITS } from '../support/test-app.ts';
import { agentOn, expectToolError, expectToolOk, type toolCaller } from '../support/tool-caller.ts';
import type { WebClient } from '../support/web-client.ts';

// Unsubscribing (RFC 8058) against a real IMAP server holding DKIM-signed list mail, with the one request going to a
// local https sink (a CA only this test trusts) and the SSRF cases aimed at a listening socket that must stay silent.
describe('unsubscribing on IMAP', () => {
  const USER = 'carol';
  const PASSWORD = 'carol-imap-password';
  const signer = dkimSigner('news.example.test');
  let now = Date.UTC(2026, 10, 1);
  const clock: Clock = { now: () => new Date(now) };
  let dovecot: Dovecot;
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let web: WebClient;
  let inboxId: string;
  let sink: HttpsSink;
  let wire: Tripwire;
  const byFrom = new Map<string, string>();
  const keyLookups: string[] = [];

  beforeAll(async () => {
    const tls = testTls(['unsub.news.example.test']);
    sink = await startHttpsSink(tls);
    wire = await startTripwire();
    const oneClick = (id: string, url: string): ListSpec => ({ id, unsubscribeHttps: url, oneClick: true });
    const good = `https://unsub.news.example.test:${String(sink.port)}/u/weekly?t=abc`;
    const fixtures: { from: string; list?: ListSpec; sign?: readonly string[]; extra?: string }[] = [
      {
        from: 'weekly@news.example.test',
        list: oneClick('weekly.news.example.test', good),
        sign: ONE_CLICK_HEADERS,
      },
      { from: 'unsigned@news.example.test', list: oneClick('unsigned.news.example.test', good) },
      {
        from: 'partial@news.example.test',
        list: oneClick('partial.news.example.test', good),
        sign: ONE_CLICK_HEADERS.filter((h) => h !== 'List-Unsubscribe-Post'),
      },
      {
        from: 'dup@news.example.test',
        list: oneClick('dup.news.example.test', good),
        sign: ONE_CLICK_HEADERS,
        extra: `List-Unsubscribe: <https://evil.example/u>\r\n`,
      },
      {
        from: 'http@news.example.test',
        list: oneClick('http.news.example.test', 'http://news.example.test/u'),
        sign: ONE_CLICK_HEADERS,
      },
      {
        from: 'mailto@news.example.test',
        list: {
          id: 'mailto.news.example.test',
          unsubscribeMailto: 'mailto:leave@news.example.test?subject=stop',
        },
        sign: ONE_CLICK_HEADERS,
      },
      // Signed and one-click, but the person's provider found the From forged (its verdict on top, decision 0104).
      {
        from: 'forged@news.example.test',
        list: oneClick('forged.news.example.test', good),
        sign: ONE_CLICK_HEADERS,
        extra:
          'Authentication-Results: mx.carol-provider.test; spf=fail smtp.mailfrom=elsewhere.test; dkim=pass header.d=news.example.test; dmarc=fail (p=REJECT) header.from=news.example.test\r\n',
      },
      {
        from: 'loopback@news.example.test',
        list: oneClick('loopback.news.example.test', `https://127.0.0.1:${String(wire.port)}/u`),
        sign: ONE_CLICK_HEADERS,
      },
      {
        from: 'rebind@news.example.test',
        list: oneClick('rebind.news.example.test', `https://rebind.news.example.test:${String(wire.port)}/u`),
        sign: ONE_CLICK_HEADERS,
      },
    ];
    const messages = await Promise.all(
      fixtures.map(async (f, i) => {
        const raw = buildMessage({
          from: { name: f.from.split('@')[0] ?? '', address: f.from },
          to: [{ address: `${USER}@example.test` }],
          subject: `Issue ${String(i)}`,
          date: new Date(Date.UTC(2026, 9, 1) + i * 60_000),
          messageId: `<list${String(i)}@news.example.test>`,
          ...(f.list !== undefined && { list: f.list }),
          text: 'News.',
        });
        const signed = f.sign === undefined ? raw : await signer.sign(raw, f.sign);
        return {
          raw: f.extra === undefined ? signed : Buffer.concat([Buffer.from(f.extra), signed]),
          flags: [],
          internalDate: new Date(Date.UTC(2026, 9, 1) + i * 60_000),
        };
      }),
    );
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    await seedMaildir({ maildir: dovecot.maildirOf(USER), messages });
    app = await createTestApp({
      config: { rateLimits: NO_RATE_LIMITS, unsubscribeAllowedHosts: ['unsub.news.example.test'] },
      overrides: {
        clock,
        dkimResolver: (name, rrtype) => {
          keyLookups.push(name);
          return signer.resolver(name, rrtype);
        },
        unsubscribeCa: tls.ca,
        unsubscribeLookup: (name) =>
          ['unsub.news.example.test', 'rebind.news.example.test'].includes(name)
            ? Promise.resolve(['127.0.0.1'])
            : Promise.reject(new Error('ENOTFOUND')),
      },
    });
    ({ call, web } = await agentOn(app));
    inboxId = await connectImapInbox(app, call, { dovecot, user: USER, password: PASSWORD });
    const rows = expectToolOk(await call('review_unsubscribes', { inbox: inboxId, limit: 100 }))[
      'senders'
    ] as {
      messageId: string;
      sender: { address: string };
    }[];
    for (const r of rows) byFrom.set(r.sender.address, r.messageId);
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await dovecot.stop();
    await sink.close();
    await wire.close();
  });

  const propose = (from: string) => call('propose_unsubscribe', { inboxId, messageId: byFrom.get(from) });

  it('lists every list sender of the mailbox once, with one-click where it is advertised', () => {
    expect([...byFrom.keys()].sort()).toEqual(
      ['dup', 'forged', 'http', 'loopback', 'mailto', 'partial', 'rebind', 'unsigned', 'weekly'].map(
        (u) => `${u}@news.example.test`,
      ),
    );
  });

  it('a signed one-click link: proposed, approved, exactly one POST even for 50 concurrent confirms', async () => {
    const proposed = await propose('weekly@news.example.test');
    const p = expectToolOk(proposed);
    expect(p).toMatchObject({ host: 'unsub.news.example.test', signedBy: 'news.example.test' });
    // The signing domain is chosen by whoever signs (any domain its owner has keys on): marked as the sender's word.
    expect(proposed.raw['signedBy']).toMatch(
      /^\u27e6([a-z0-9]{6})\u27e7news\.example\.test\u27e6\/\1\u27e7$/,
    );
    const args = { pendingUnsubscribeId: p['pendingUnsubscribeId'], approvalCode: p['approvalCode'] };
    expectToolError(await call('confirm_unsubscribe', args), 'human_approval_required');
    sink.requests.length = 0;
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call('confirm_unsubscribe', { ...args, humanApprovedInChat: true })),
    );
    const done = results.filter((r) => !r.isError);
    expect(done).toHaveLength(1);
    expect(done[0]?.body).toMatchObject({ unsubscribed: true, result: 'done', httpStatus: 200 });
    expect(results.filter((r) => r.isError).every((r) => r.body['error'] === 'approval_used')).toBe(true);
    expect(sink.requests).toHaveLength(1);
    expect(sink.requests[0]).toMatchObject({
      method: 'POST',
      url: '/u/weekly?t=abc',
      body: 'List-Unsubscribe=One-Click',
    });
    expect(sink.requests[0]?.headers['cookie']).toBeUndefined();
    expect(sink.requests[0]?.headers['authorization']).toBeUndefined();
    const row = (
      expectToolOk(await call('review_unsubscribes', { inbox: inboxId }))['senders'] as {
        sender: { address: string };
        unsubscribed: unknown;
      }[]
    ).find((r) => r.sender.address === 'weekly@news.example.test');
    expect(row?.unsubscribed).toMatchObject({ result: 'done', mailSince: false });
  });

  it.each([
    ['unsigned@news.example.test', 'unsigned'],
    ['partial@news.example.test', 'signature_not_covering'],
    ['dup@news.example.test', 'duplicated_header'],
    ['http@news.example.test', 'not_https'],
    ['mailto@news.example.test', 'mailto_only'],
    ['forged@news.example.test', 'sender_failed_dmarc'],
  ])('%s: no pending request, and the reason (%s)', async (from, reason) => {
    sink.requests.length = 0;
    keyLookups.length = 0;
    const r = expectToolError(await propose(from), 'unsubscribe_unavailable');
    expect(r['details']).toMatchObject({ reason });
    expect(typeof r['sayToHuman']).toBe('string');
    expect(sink.requests).toHaveLength(0);
    // A signer's key is looked up only for a message whose headers offer one-click (decision 0099): of these, the
    // one signed (the unsigned one has no key to look up).
    expect(keyLookups.length > 0).toBe(reason === 'signature_not_covering');
  });

  it('mail whose From the provider found forged offers no way out at all: not a request, not the link by hand', async () => {
    const r = expectToolError(await propose('forged@news.example.test'), 'unsubscribe_unavailable');
    expect(r['details']).toEqual({ reason: 'sender_failed_dmarc', fallback: { mailto: null, link: null } });
    expect(r['message']).toMatch(/forged .* junk/);
    expect(r['message']).not.toMatch(/act_on_messages \{ sender \} \(archive\)/);
    expect(r['sayToHuman']).toMatch(/forged/);
  });

  it('a signed link to loopback (literal or by DNS) is refused before any connection', async () => {
    for (const from of ['loopback@news.example.test', 'rebind@news.example.test']) {
      const p = expectToolOk(await propose(from));
      const r = expectToolOk(
        await call('confirm_unsubscribe', {
          pendingUnsubscribeId: p['pendingUnsubscribeId'],
          approvalCode: p['approvalCode'],
          humanApprovedInChat: true,
        }),
      );
      expect(r).toMatchObject({ unsubscribed: false, result: 'refused', httpStatus: null });
    }
    expect(wire.connections()).toBe(0);
  });

  it('wrong, reused and expired codes get their own errors; five wrong codes lock the approval', async () => {
    const p = expectToolOk(await propose('weekly@news.example.test'));
    const id = p['pendingUnsubscribeId'];
    const wrong = expectToolError(
      await call('confirm_unsubscribe', {
        pendingUnsubscribeId: id,
        approvalCode: 'nope',
        humanApprovedInChat: true,
      }),
      'approval_invalid',
    );
    expect(wrong['details']).toEqual({ attemptsLeft: 4 });
    for (let i = 0; i < 4; i++)
      await call('confirm_unsubscribe', {
        pendingUnsubscribeId: id,
        approvalCode: 'nope',
        humanApprovedInChat: true,
      });
    const locked = await call('confirm_unsubscribe', {
      pendingUnsubscribeId: id,
      approvalCode: p['approvalCode'],
      humanApprovedInChat: true,
    });
    expectToolError(locked, 'approval_invalid');
    const later = expectToolOk(await propose('weekly@news.example.test'));
    now += 24 * 3_600_000 + 1;
    expectToolError(
      await call('confirm_unsubscribe', {
        pendingUnsubscribeId: later['pendingUnsubscribeId'],
        approvalCode: later['approvalCode'],
        humanApprovedInChat: true,
      }),
      'approval_expired',
    );
    expectToolError(
      await call('confirm_unsubscribe', {
        pendingUnsubscribeId: 'pu_unknown',
        approvalCode: 'x',
        humanApprovedInChat: true,
      }),
      'approval_invalid',
    );
  });

  // The console said "Unsubscribed" whatever the sender's server answered; it now says what the chat says.
  it.each([
    [200, '/waiting?done=unsubscribed', 'Unsubscribed: the sender’s server was asked once and confirmed it.'],
    [500, '/waiting?error=unsubscribe_rejected', 'the sender’s server refused it'],
  ])('sent from the console, a request answered %d is told as such', async (status, location, words) => {
    sink.respond = () => ({ status, body: 'answer' });
    const p = expectToolOk(await propose('weekly@news.example.test'));
    await web.get('/waiting');
    const res = await web.post('/waiting/unsubscribe', { id: p['pendingUnsubscribeId'] as string });
    expect(res.headers.get('location')).toBe(location);
    await web.get(location);
    expect(web.lastHtml).toContain(words);
    sink.respond = () => ({ status: 200, body: 'unsubscribed' });
  });
});
