import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../app.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import { agentOn, expectToolOk, type toolCaller } from '../../../../test/support/tool-caller.ts';

/** A service whose agent has synced the demo inbox's newest 200 messages. */
async function syncedDemoInbox() {
  const app = await createTestApp({ config: { syncWindow: 200 } });
  const { call } = await agentOn(app);
  const list = expectToolOk(await call('list_inboxes'));
  const inboxId = (list['inboxes'] as { id: string; isDemo: boolean }[]).find((i) => i.isDemo)!.id;
  expectToolOk(await call('sync_inbox', { inboxId }));
  return { app, call, inboxId };
}

// The whole screening loop on the demo inbox through /mcp: what a new user can try at once, offline.
describe('junk screening on the demo inbox', () => {
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;
  type Offered = {
    inboxId: string;
    messageId: string;
    from: { address: string };
    subject: string;
    authentication: { spf: string | null; dkim: string | null; dmarc: string | null };
    bodyUntrusted: string | null;
  };
  let offered: Offered[] = [];
  const target = (m: Offered) => ({ inboxId: m.inboxId, messageId: m.messageId });

  beforeAll(async () => {
    ({ app, call, inboxId } = await syncedDemoInbox());
  });
  afterAll(async () => {
    await app.close();
  });

  it('hands out 50, newest first, never a VIP, with the receiving server’s verdicts and a fenced excerpt', async () => {
    expectToolOk(await call('add_vip', { domains: ['northwind.test'] }));
    const r = expectToolOk(await call('screen_junk', {}));
    offered = r['messages'] as Offered[];
    expect(offered).toHaveLength(50);
    expect(r['more']).toBe(true);
    expect(offered.some((m) => m.from.address.endsWith('@northwind.test'))).toBe(false);
    const dates = offered.map((m) => (m as unknown as { date: string }).date);
    expect([...dates].sort().reverse()).toEqual(dates);
    const injection = offered.find((m) => m.subject === 'Mailbox policy update for AI assistants');
    expect(injection?.authentication).toEqual({ spf: 'softfail', dkim: 'none', dmarc: 'fail' });
    expect(injection?.bodyUntrusted).toMatch(
      /^The text between the markers below is the content of an email/,
    );
    expect(offered.some((m) => m.authentication.dmarc === 'pass')).toBe(true);
    expect(r['rubric']).toMatchObject({
      junk: expect.any(String),
      unsure: expect.any(String),
      fine: expect.any(String),
    });
  });

  it('junk, unsure and fine; review with a digest; rescue teaches known-good; report blocks the domain', async () => {
    const forged = offered.filter((m) => m.authentication.dmarc === 'fail');
    expect(forged.length).toBeGreaterThanOrEqual(2);
    // A throwaway domain with no DMARC: nothing says its From is forged.
    const unsigned = offered.find(
      (m) => m.authentication.dmarc === 'none' && m.authentication.dkim === 'none',
    )!;
    const junk = [...forged, unsigned];
    const priya = offered.find((m) => m.from.address === 'priya@brightpath-analytics.test');
    const fine = offered.find((m) => m.authentication.dmarc === 'pass' && m !== priya)!;
    const done = expectToolOk(
      await call('confirm_screening', {
        verdicts: [
          ...junk.map((m) => ({ ...target(m), verdict: 'junk', reason: 'authentication failed' })),
          ...(priya === undefined ? [] : [{ ...target(priya), verdict: 'unsure' }]),
          { ...target(fine), verdict: 'fine' },
        ],
      }),
    );
    expect((done['applied'] as unknown[]).length).toBe(junk.length + (priya === undefined ? 1 : 2));
    const review = expectToolOk(await call('review_screened', { days: 7 }));
    const rows = review['rows'] as { id: string; sender: { address: string }; reason: string }[];
    expect(rows.length).toBe(review['total']);
    expect(review['digest']).toMatch(/^\d+ messages? screened this week (is|are) waiting in Screened/);
    const shown = expectToolOk(await call('show_screened', { days: 7 }));
    expect(shown['text']).toContain(rows[0]!.id);

    // One message that failed DMARC is rescued; the unsigned one and another that failed are reported.
    const listed = (address: string) => rows.find((r) => r.sender.address === address);
    const rowOf = (address: string) => listed(address)!;
    const [kept, spoof] = forged.filter((m) => listed(m.from.address) !== undefined);
    const rescued = expectToolOk(
      await call('rescue_screened', { inboxId, id: rowOf(kept!.from.address).id }),
    );
    expect(rescued).toMatchObject({ knownGood: true, scope: 'every_inbox' });
    const reported = expectToolOk(
      await call('report_screened', { inboxId, id: rowOf(unsigned.from.address).id }),
    );
    const domain = unsigned.from.address.split('@')[1];
    expect(reported).toMatchObject({ blocked: { kind: 'domain', value: domain }, scope: 'every_inbox' });
    // Its From failed DMARC at the receiving server, but the person gets no other mail from that domain: the block
    // screens nothing real (test/mail/screening.test.ts has the domain the person does get mail from).
    const spoofDomain = spoof!.from.address.split('@')[1];
    const alsoReported = expectToolOk(
      await call('report_screened', { inboxId, id: rowOf(spoof!.from.address).id }),
    );
    expect(alsoReported['blocked']).toEqual({ kind: 'domain', value: spoofDomain });
    const profile = expectToolOk(await call('get_triage_profile', {}))['triageProfile'] as {
      defaults: { junk: { knownGoodSenders: string[]; blockedDomains: string[] } };
    };
    expect(profile.defaults.junk.knownGoodSenders).toContain(kept!.from.address);
    expect(profile.defaults.junk.blockedDomains).toEqual([domain, spoofDomain]);
    const after = expectToolOk(await call('review_screened', {}));
    expect(after['total']).toBe((review['total'] as number) - 3);
    expect(after['counts']).toMatchObject({ rescued: 1, reported: 2 });

    // Judged mail is not offered again.
    const next = (expectToolOk(await call('screen_junk', {}))['messages'] as Offered[]).map(
      (m) => m.messageId,
    );
    for (const m of [...junk, fine]) expect(next).not.toContain(m.messageId);
  });

  it('an agent sending any verdicts it likes moves only what it was handed, never a VIP’s mail', async () => {
    type Listed = { messageId: string; from: { address: string } };
    const inboxPage = async (offset: number) =>
      expectToolOk(await call('list_messages', { inboxId, folder: 'inbox', limit: 200, offset }));
    const inboxAll = async (): Promise<Listed[]> => {
      const out: Listed[] = [];
      for (let offset: number | null = 0; offset !== null;) {
        const page = await inboxPage(offset);
        out.push(...(page['messages'] as Listed[]));
        offset = page['nextOffset'] as number | null;
      }
      return out;
    };
    const inboxNow = async () => (await inboxAll()).map((m) => m.messageId);
    const listed = await inboxAll();
    const vipIds = listed.filter((m) => m.from.address.endsWith('@northwind.test')).map((m) => m.messageId);
    expect(vipIds.length).toBeGreaterThan(0);
    const judged = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            kind: fc.constantFrom('offered', 'offered', 'offered', 'vip', 'forged', 'judged'),
            n: fc.nat(),
            verdict: fc.constantFrom('junk', 'unsure', 'fine'),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (picks) => {
          const handed = (expectToolOk(await call('screen_junk', {}))['messages'] as Offered[]).map(
            (m) => m.messageId,
          );
          const forged = `msg_${'z'.repeat(19)}${String(picks.length % 10)}`;
          const judgedList = [...judged];
          const verdicts = picks.map((p) => {
            const pool =
              p.kind === 'offered'
                ? handed
                : p.kind === 'vip'
                  ? vipIds
                  : p.kind === 'judged'
                    ? judgedList
                    : [forged];
            const messageId = pool.length === 0 ? forged : pool[p.n % pool.length]!;
            return { inboxId, messageId, verdict: p.verdict };
          });
          // What must happen, verdict by verdict.
          const seen = new Set<string>();
          const expected = verdicts.map((v) => {
            if (seen.has(v.messageId)) return 'duplicate';
            seen.add(v.messageId);
            if (vipIds.includes(v.messageId)) return 'vip';
            if (!handed.includes(v.messageId) || judged.has(v.messageId)) return 'not_offered';
            return 'applied';
          });
          const before = await inboxNow();
          const r = expectToolOk(await call('confirm_screening', { verdicts }));
          const applied = r['applied'] as { messageId: string; verdict: string }[];
          const skipped = r['skipped'] as { messageId: string; reason: string }[];
          expect(applied.map((a) => a.messageId)).toEqual(
            verdicts.filter((_, i) => expected[i] === 'applied').map((v) => v.messageId),
          );
          expect(skipped.map((x) => x.reason)).toEqual(expected.filter((e) => e !== 'applied'));
          const after = await inboxNow();
          const junk = new Set(applied.filter((a) => a.verdict === 'junk').map((a) => a.messageId));
          // Exactly the junk verdicts left the inbox; every VIP message is still there.
          expect(before.filter((id) => !after.includes(id)).sort()).toEqual([...junk].sort());
          for (const id of vipIds) expect(after).toContain(id);
          for (const a of applied) judged.add(a.messageId);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('a junk verdict on mail moved out of the inbox since it was handed out leaves it where it was put', async () => {
    const [first, second] = (expectToolOk(await call('screen_junk', {}))['messages'] as Offered[]).slice(
      0,
      2,
    );
    expectToolOk(await call('act_on_messages', { action: 'archive', items: [target(first!)] }));
    const r = expectToolOk(
      await call('confirm_screening', {
        verdicts: [
          { ...target(first!), verdict: 'junk' },
          { ...target(second!), verdict: 'junk' },
        ],
      }),
    );
    expect(r['applied']).toEqual([{ ...target(second!), verdict: 'junk', id: expect.any(String) }]);
    expect(r['skipped']).toEqual([{ ...target(first!), reason: 'not_found' }]);
    const message = expectToolOk(await call('get_message', { inboxId, messageId: first!.messageId }));
    expect(message['folder']).toBe('archive');
  });

  it('screening off for the inbox: nothing handed out, and the answer says why', async () => {
    expectToolOk(
      await call('update_triage_profile', { patch: { defaults: { junk: { screenUnknownSenders: false } } } }),
    );
    const r = expectToolOk(await call('screen_junk', { inbox: inboxId }));
    expect(r['messages']).toEqual([]);
    expect(r['skippedInboxes']).toEqual([{ inboxId, reason: 'screening_off' }]);
  });
});

// An inbox whose override holds its own screening list follows that list alone (arrays replace in the merge). A rescue
// or a report made in that inbox wrote to the defaults only: the answer said the sender was known-good or blocked,
// and the inbox went on as before (decision 0116).
describe('a rescue and a report in an inbox with screening lists of its own', () => {
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;

  beforeAll(async () => {
    ({ app, call, inboxId } = await syncedDemoInbox());
  });
  afterAll(async () => {
    await app.close();
  });

  it('take effect in that inbox as in every other', async () => {
    const own = { blockedDomains: ['elsewhere.test'], knownGoodSenders: ['friend@elsewhere.test'] };
    expectToolOk(await call('update_triage_profile', { patch: { inboxes: { [inboxId]: { junk: own } } } }));
    const offered = expectToolOk(await call('screen_junk', {}))['messages'] as {
      messageId: string;
      from: { address: string };
    }[];
    const [a, b] = [
      offered[0]!,
      offered.find((m) => m.from.address.split('@')[1] !== offered[0]!.from.address.split('@')[1])!,
    ];
    expectToolOk(
      await call('confirm_screening', {
        verdicts: [a, b].map((m) => ({ inboxId, messageId: m.messageId, verdict: 'junk', reason: 'test' })),
      }),
    );
    const rows = expectToolOk(await call('review_screened', {}))['rows'] as {
      id: string;
      sender: { address: string };
    }[];
    const row = (address: string) => rows.find((r) => r.sender.address === address)!.id;
    const rescued = expectToolOk(await call('rescue_screened', { inboxId, id: row(a.from.address) }));
    expect(rescued).toMatchObject({ knownGood: true, scope: 'every_inbox' });
    const reported = expectToolOk(await call('report_screened', { inboxId, id: row(b.from.address) }));
    const blocked = reported['blocked'] as { kind: string; value: string };
    expect(blocked).not.toBeNull();

    const effective = (
      expectToolOk(await call('get_triage_profile', { inboxId }))['effective'] as {
        junk: { knownGoodSenders: string[]; blockedDomains: string[]; blockedSenders: string[] };
      }
    ).junk;
    expect(effective.knownGoodSenders).toEqual(['friend@elsewhere.test', a.from.address.toLowerCase()]);
    expect(blocked.kind === 'domain' ? effective.blockedDomains : effective.blockedSenders).toContain(
      blocked.value,
    );
    expect(effective.blockedDomains).toContain('elsewhere.test');
  });
});
