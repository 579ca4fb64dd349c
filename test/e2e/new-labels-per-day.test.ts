import { afterEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.ts';
import { twoAgentsOnAnInbox } from '../support/inbox-day-budget.ts';
import { expectToolError, expectToolOk } from '../support/tool-caller.ts';

const DAY = 86_400_000;
/** RATE_LIMIT_NEW_LABELS_PER_INBOX_PER_DAY here (50 unless set). */
const PER_DAY = 3;

// Decision 0146: a label an agent applies that the mailbox lacks is made, as often as its request budget allowed — a
// loop, or an agent obeying a sender's words, could fill the person's label list (Gmail takes 10,000; some IMAP
// servers a hundred-odd keywords a folder), past which their own mail client can make no more.
describe.each(['sqlite', 'postgres'] as const)('new labels on %s', (engine) => {
  const apps: App[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const a of apps.splice(0)) await a.close();
  });

  it(`are ${String(PER_DAY)} an inbox a day, whoever makes them and on whichever node; labels it has are free`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { web, first, other, inboxId, removeInboxAndItsCount } = await twoAgentsOnAnInbox(
      engine,
      { newLabelsPerInboxPerDay: PER_DAY },
      apps,
    );
    expectToolOk(await first('sync_inbox', { inboxId }));
    const listed = expectToolOk(await first('list_messages', { inboxId, limit: 2 }));
    const [m1, m2] = (listed['messages'] as { messageId: string }[]).map((m) => m.messageId);
    const labelsOf = async (messageId: string) =>
      expectToolOk(await first('get_message', { inboxId, messageId }))['labels'] as string[];
    const apply = (agent: typeof first, messageId: string, labelIds: string[]) =>
      agent('apply_labels', { inboxId, messageIds: [messageId], labelIds });
    const had = await labelsOf(m1!);
    const known = (expectToolOk(await first('list_labels', { inboxId }))['labels'] as { id: string }[]).map(
      (l) => l.id,
    );

    // Two new labels, then the same again and a label the inbox had: only the two count.
    expect(known.length).toBeGreaterThan(0);
    expectToolOk(await apply(first, m1!, ['Trip-A', 'Trip-B']));
    expectToolOk(await apply(other, m2!, ['Trip-A', 'Trip-B', known[0]!]));
    expectToolOk(
      await first('act_on_messages', {
        action: 'label',
        items: [{ inboxId, messageId: m2! }],
        labelIds: ['Trip-A'],
      }),
    );
    // Two more when one is left: refused whole, and they spend none of it (decision 0150).
    const notTwo = expectToolError(await apply(first, m1!, ['Trip-X', 'Trip-Y']), 'rate_limited');
    // Said as it is (decision 0153): one is left, not "as many as it takes".
    expect(notTwo['message']).toContain('this inbox can gain 1 more new label today (3 a day)');
    expect(notTwo['sayToHuman']).toMatch(/may gain 1 more today/);
    expect(notTwo['retryAfterSeconds']).toBeGreaterThan(0);
    // The third, from the other agent on its node, by the other tool.
    expectToolOk(
      await other('act_on_messages', {
        action: 'label',
        items: [{ inboxId, messageId: m1! }],
        labelIds: ['Trip-C'],
      }),
    );
    // One more passes the day's three: refused whole, nothing made, nothing changed.
    const refused = expectToolError(await apply(first, m1!, ['Trip-B', 'Trip-D']), 'rate_limited');
    expect(refused['retryAfterSeconds']).toBeGreaterThan(DAY / 1000 - 600);
    expect(refused['message']).toContain('labels it has still go on');
    expect(refused['message']).toContain('Use the labels list_labels lists, or wait.');
    expect(refused['sayToHuman']).toMatch(/new labels today/);
    expect(refused['details']).toBeUndefined();
    expect(await labelsOf(m1!)).toEqual([...had, 'Trip-A', 'Trip-B', 'Trip-C'].sort());
    expectToolError(await apply(other, m2!, ['Trip-D']), 'rate_limited');
    // Labels the inbox has still go on.
    expectToolOk(await apply(first, m2!, ['Trip-C']));
    expect(await labelsOf(m2!)).toEqual(expect.arrayContaining(['Trip-A', 'Trip-B', 'Trip-C']));
    // The person sees it in Activity, in words that say what it may mean.
    const activity = await (await web.get('/settings/activity')).text();
    expect(activity).toContain('Tried to make more new labels than an inbox takes in a day');

    // A day on, the inbox takes new labels again.
    vi.setSystemTime(Date.now() + DAY);
    expectToolOk(await apply(other, m2!, ['Trip-D']));
    expect(await labelsOf(m2!)).toContain('Trip-D');
    // More new labels in one change than a whole day takes: never allowed, so not answered with a wait (decision
    // 0153); what the day has left stays for a smaller change.
    const never = expectToolError(
      await apply(first, m1!, ['Trip-E', 'Trip-F', 'Trip-G', 'Trip-H']),
      'rate_limited',
    );
    expect(never['retryAfterSeconds']).toBeUndefined();
    expect(never['message']).toContain('no day takes them in one change');
    expect(never['message']).toContain('or make at most 3 new ones in a change.');
    expect(never['sayToHuman']).toMatch(/more than this inbox may gain in a day \(3\)/);
    expectToolOk(await apply(first, m1!, ['Trip-E', 'Trip-F']));

    // Removing the inbox takes its count with it.
    await removeInboxAndItsCount();
  });
});
