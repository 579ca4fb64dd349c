import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { appendViaImap, buildMessage, seedMaildir, startDovecot, type Dovecot } from '../rig/index.ts';
import { connectImapInbox, mailboxState } from '../support/imap-inbox.ts';
import { createTestApp, NO_RATE_LIMITS } from '../support/test-app.ts';
import { agentOn, expectToolError, expectToolOk, toolCaller } from '../support/tool-caller.ts';
import { createKeyViaPage, invitedAccount } from '../support/web-client.ts';

// Junk screening (issue 18) against a real IMAP server: verdicts, the Screened folder, undo, rescue, report and the
// blocklist on the next sync — each change checked by listing the mailbox with a direct IMAP client.
describe('junk screening on IMAP', () => {
  const USER = 'dana';
  const PASSWORD = 'dana-imap-password';
  const VIP = 'boss@corp.test';
  const GOOD = 'friend@pals.test';
  const clock = fixedClock(new Date(Date.UTC(2026, 9, 10)));
  let dovecot: Dovecot;
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let rival: ReturnType<typeof toolCaller>;
  let stranger: ReturnType<typeof toolCaller>;
  let inboxId: string;

  // Oldest first; the last one carries the receiving server's Authentication-Results above a forged one.
  const senders = [
    VIP,
    VIP,
    GOOD,
    GOOD,
    'promo@junk-deals.test',
    'promo@junk-deals.test',
    'promo@junk-deals.test',
    'phish1@lookalike.test',
    'phish2@lookalike.test',
    'person0@example.org',
    'person1@example.org',
    'person2@example.org',
    'person2@example.org',
    'starred@example.org',
    'signals@auth.example.test',
  ];

  beforeAll(async () => {
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    const start = Date.UTC(2026, 9, 1);
    await seedMaildir({
      maildir: dovecot.maildirOf(USER),
      messages: senders.map((from, i) => ({
        raw: buildMessage({
          from: { address: from, name: from.split('@')[0] ?? '' },
          to: [{ address: `${USER}@example.test` }],
          subject: `Message ${String(i)}`,
          date: new Date(start + i * 3_600_000),
          messageId: `<s${String(i)}@rig.test>`,
          text: `Body ${String(i)}`,
          ...(from.startsWith('signals@') && {
            headers: {
              'Authentication-Results':
                'mx.example.test; spf=softfail (sender not allowed; dkim=pass in a comment) smtp.mailfrom=auth.example.test; dkim=fail header.d=auth.example.test; dmarc=fail',
              'X-Forged': 'x',
            },
          }),
        }),
        flags: from.startsWith('starred@') ? ['\\Flagged'] : [],
        internalDate: new Date(start + i * 3_600_000),
      })),
    });
    app = await createTestApp({ config: { rateLimits: NO_RATE_LIMITS }, overrides: { clock } });
    const agent = await agentOn(app);
    call = agent.call;
    rival = toolCaller(app, await createKeyViaPage(agent.web));
    stranger = toolCaller(app, await createKeyViaPage(await invitedAccount(app, 'stranger@example.test')));
    inboxId = await connectImapInbox(app, call, { dovecot, user: USER, password: PASSWORD });
    expectToolOk(await call('add_vip', { emails: [VIP] }));
    expectToolOk(
      await call('update_triage_profile', { patch: { defaults: { junk: { knownGoodSenders: [GOOD] } } } }),
    );
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await dovecot.stop();
  });

  type Offered = {
    inboxId: string;
    messageId: string;
    from: { address: string };
    authentication: { spf: string | null; dkim: string | null; dmarc: string | null };
    firstTimeSender: boolean;
    bodyUntrusted: string | null;
  };
  const screen = async () =>
    expectToolOk(await call('screen_junk', { inbox: inboxId }))['messages'] as Offered[];
  const state = () => mailboxState(dovecot, USER, PASSWORD);
  const inFolder = (rows: string[], folder: string) => rows.filter((r) => r.startsWith(`${folder} |`));
  const target = (m: Offered) => ({ inboxId: m.inboxId, messageId: m.messageId });
  let offered: Offered[] = [];
  const of = (address: string) => offered.filter((m) => m.from.address === address);

  it('hands out the unscreened inbox mail, never from VIP or known-good senders nor starred, with its signals', async () => {
    offered = await screen();
    const addresses = new Set(offered.map((m) => m.from.address));
    expect(addresses).not.toContain(VIP);
    expect(addresses).not.toContain(GOOD);
    expect(addresses).not.toContain('starred@example.org');
    expect(offered).toHaveLength(senders.length - 5);
    // Newest first.
    expect(offered[0]?.from.address).toBe('signals@auth.example.test');
    // The topmost header counts, and a result inside a comment is not a result.
    expect(offered[0]?.authentication).toEqual({ spf: 'softfail', dkim: 'fail', dmarc: 'fail' });
    expect(of('person0@example.org')[0]?.authentication).toEqual({ spf: null, dkim: null, dmarc: null });
    expect(of('person0@example.org')[0]?.firstTimeSender).toBe(true);
    expect(of('promo@junk-deals.test')[0]?.firstTimeSender).toBe(false);
    expect(of('person0@example.org')[0]?.bodyUntrusted).toMatch(
      /UNTRUSTED_EMAIL_BODY nonce="[^"]+">>>\nBody 9\n/,
    );
  });

  it('refuses bad verdicts with documented codes and moves nothing', async () => {
    const before = await state();
    const [first] = offered;
    expectToolError(
      await call('confirm_screening', {
        verdicts: Array.from({ length: 51 }, () => ({ ...target(first!), verdict: 'junk' })),
      }),
      'invalid_arguments',
    );
    expectToolError(
      await call('confirm_screening', { verdicts: [{ ...target(first!), verdict: 'maybe' }] }),
      'invalid_arguments',
    );
    // Ids never handed out, and this account's ids from another account: reported, not fatal.
    const list = expectToolOk(await call('list_messages', { inboxId, limit: 50 }))['messages'] as {
      messageId: string;
      from: { address: string };
    }[];
    const vipMessage = list.find((m) => m.from.address === VIP)!;
    const starred = list.find((m) => m.from.address === 'starred@example.org')!;
    const mine = expectToolOk(
      await call('confirm_screening', {
        verdicts: [
          { inboxId, messageId: starred.messageId, verdict: 'junk' },
          { inboxId, messageId: 'msg_00000000000000000000', verdict: 'junk' },
          { inboxId, messageId: vipMessage.messageId, verdict: 'junk' },
          { inboxId: 'inbox_00000000000000000000', messageId: first!.messageId, verdict: 'junk' },
        ],
      }),
    );
    expect(mine['applied']).toEqual([]);
    expect((mine['skipped'] as { reason: string }[]).map((s) => s.reason)).toEqual([
      'not_offered',
      'not_offered',
      'vip',
      'not_offered',
    ]);
    const foreign = expectToolOk(
      await stranger('confirm_screening', {
        verdicts: offered.map((m) => ({ ...target(m), verdict: 'junk' })),
      }),
    );
    expect(foreign['applied']).toEqual([]);
    expect(new Set((foreign['skipped'] as { reason: string }[]).map((s) => s.reason))).toEqual(
      new Set(['not_offered']),
    );
    // Another agent's lease refuses the whole call.
    expectToolOk(await rival('begin_triage', { inboxId, agentLabel: 'Rival', force: true }));
    expectToolError(
      await call('confirm_screening', { verdicts: [{ ...target(first!), verdict: 'junk' }] }),
      'lease_held',
    );
    expectToolOk(await rival('end_triage', { inboxId, agentLabel: 'Rival' }));
    expect(await state()).toEqual(before);
  });

  let before: string[] = [];
  let undoId = '';

  it('junk goes to a Screened folder it creates, unsure is marked, fine stays — and undo puts it all back', async () => {
    before = await state();
    const verdicts = [
      ...of('promo@junk-deals.test').map((m) => ({ ...target(m), verdict: 'junk', reason: 'bulk deals' })),
      ...of('phish1@lookalike.test').map((m) => ({ ...target(m), verdict: 'junk' })),
      ...of('person0@example.org').map((m) => ({ ...target(m), verdict: 'unsure' })),
      ...of('person1@example.org').map((m) => ({ ...target(m), verdict: 'fine' })),
    ];
    const done = expectToolOk(await call('confirm_screening', { verdicts }));
    expect(done['applied']).toHaveLength(6);
    undoId = done['undoId'] as string;
    const after = await state();
    expect(
      inFolder(after, 'Screened')
        .map((r) => r.split(' | ')[1])
        .sort(),
    ).toEqual(['<s4@rig.test>', '<s5@rig.test>', '<s6@rig.test>', '<s7@rig.test>']);
    expect(after.find((r) => r.includes('<s9@rig.test>'))).toBe('INBOX | <s9@rig.test> | Screening-Unsure');
    expect(after.find((r) => r.includes('<s10@rig.test>'))).toBe('INBOX | <s10@rig.test> | ');
    // A verdict counts once: the same ids again are not offered and not applied twice.
    const again = expectToolOk(await call('confirm_screening', { verdicts }));
    expect(again['applied']).toEqual([]);
    const next = (await screen()).map((m) => m.messageId);
    for (const v of verdicts) expect(next).not.toContain(v.messageId);

    expectToolOk(await call('undo_action', { undoId }));
    const undone = await state();
    expect(undone.filter((r) => !r.startsWith('Screened |'))).toEqual(before);
    expect(inFolder(undone, 'Screened')).toEqual([]);
  });

  let screenedRows: { id: string; sender: { address: string }; source: string }[] = [];

  it('review_screened lists what waits in Screened with a digest; rescue brings it back and marks the sender good', async () => {
    offered = await screen();
    const verdicts = [
      ...of('phish2@lookalike.test').map((m) => ({ ...target(m), verdict: 'junk', reason: 'look-alike' })),
      ...of('person2@example.org')
        .slice(0, 1)
        .map((m) => ({ ...target(m), verdict: 'junk' })),
    ];
    expect(verdicts).toHaveLength(2);
    expectToolOk(await call('confirm_screening', { verdicts }));
    const review = expectToolOk(await call('review_screened', { inbox: inboxId }));
    screenedRows = review['rows'] as typeof screenedRows;
    expect(screenedRows.map((r) => r.sender.address).sort()).toEqual([
      'person2@example.org',
      'phish2@lookalike.test',
    ]);
    expect(review['digest']).toBe('2 messages screened this week are waiting in Screened, from 2 senders.');
    const page = expectToolOk(await call('review_screened', { inbox: inboxId, limit: 1 }));
    expect(page['nextOffset']).toBe(1);

    const row = screenedRows.find((r) => r.sender.address === 'person2@example.org')!;
    const rescued = expectToolOk(await call('rescue_screened', { inboxId, id: row.id }));
    expect(rescued['knownGood']).toBe(true);
    expect(inFolder(await state(), 'INBOX').some((r) => r.includes('<s11@rig.test>'))).toBe(true);
    const profile = expectToolOk(await call('get_triage_profile', {}))['triageProfile'] as {
      defaults: { junk: { knownGoodSenders: string[] } };
    };
    expect(profile.defaults.junk.knownGoodSenders).toContain('person2@example.org');
    // Known-good now: person2's other message is no longer offered, and a verdict naming it is refused.
    expect((await screen()).map((m) => m.from.address)).not.toContain('person2@example.org');
    const other = of('person2@example.org')[1]!;
    const refused = expectToolOk(
      await call('confirm_screening', { verdicts: [{ ...target(other), verdict: 'junk' }] }),
    );
    expect(refused['skipped']).toEqual([{ ...target(other), reason: 'known_good' }]);
    expectToolError(await call('rescue_screened', { inboxId, id: row.id }), 'screened_not_found');
  });

  it('report moves it to Junk and blocks the domain; the next message from it lands in Screened on sync', async () => {
    const row = screenedRows.find((r) => r.sender.address === 'phish2@lookalike.test')!;
    const reported = expectToolOk(await call('report_screened', { inboxId, id: row.id }));
    expect(reported['blocked']).toEqual({ kind: 'domain', value: 'lookalike.test' });
    expect(inFolder(await state(), 'Junk').map((r) => r.split(' | ')[1])).toContain('<s8@rig.test>');
    const profile = expectToolOk(await call('get_triage_profile', {}))['triageProfile'] as {
      defaults: { junk: { blockedDomains: string[] } };
    };
    expect(profile.defaults.junk.blockedDomains).toEqual(['lookalike.test']);

    await appendViaImap({
      host: '127.0.0.1',
      port: dovecot.port,
      user: USER,
      password: PASSWORD,
      messages: [
        {
          raw: buildMessage({
            from: { address: 'billing@mail.lookalike.test', name: 'Billing' },
            to: [{ address: `${USER}@example.test` }],
            subject: 'Invoice overdue',
            date: new Date(Date.UTC(2026, 9, 9)),
            messageId: '<new-blocked@rig.test>',
            text: 'Pay now.',
          }),
          internalDate: new Date(Date.UTC(2026, 9, 9)),
        },
        {
          raw: buildMessage({
            from: { address: 'someone@example.org', name: 'Someone' },
            to: [{ address: `${USER}@example.test` }],
            subject: 'Hello',
            date: new Date(Date.UTC(2026, 9, 9, 1)),
            messageId: '<new-fine@rig.test>',
            text: 'Hi.',
          }),
          internalDate: new Date(Date.UTC(2026, 9, 9, 1)),
        },
      ],
    });
    expectToolOk(await call('sync_inbox', { inboxId }));
    const after = await state();
    expect(inFolder(after, 'Screened').map((r) => r.split(' | ')[1])).toEqual(['<new-blocked@rig.test>']);
    expect(inFolder(after, 'INBOX').some((r) => r.includes('<new-fine@rig.test>'))).toBe(true);
    const review = expectToolOk(await call('review_screened', { inbox: inboxId }));
    const blocked = (review['rows'] as typeof screenedRows).find(
      (r) => r.sender.address === 'billing@mail.lookalike.test',
    );
    expect(blocked?.source).toBe('blocklist');
    expect(review['digest']).toContain('1 came in from blocked senders');
    // Never deleted: rescuing it brings it back.
    expectToolOk(await call('rescue_screened', { inboxId, id: (blocked as { id: string }).id }));
    expect(inFolder(await state(), 'INBOX').some((r) => r.includes('<new-blocked@rig.test>'))).toBe(true);
  });

  it('an offer lapses after an hour: a late verdict is not applied, and the message is offered again', async () => {
    const fresh = await screen();
    const m = fresh.find((x) => x.from.address === 'person1@example.org') ?? fresh[0]!;
    clock.advance(61 * 60_000);
    const late = expectToolOk(
      await call('confirm_screening', { verdicts: [{ ...target(m), verdict: 'junk' }] }),
    );
    expect(late['skipped']).toEqual([{ ...target(m), reason: 'not_offered' }]);
    expect((await screen()).map((x) => x.messageId)).toContain(m.messageId);
  });
});
