import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { eventually } from '../support/eventually.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolOk, firstAttachmentLink } from '../support/tool-caller.ts';

const DAY = 86_400_000;

// Decision 0123: an agent's work used as agents use it — drafts written, one sent, approvals asked and left, an
// unsubscribe made and another asked, a card shown, an attachment link — and the hourly sweep run a week and a month
// on. Every draft, every approval and link stayed in the database for good; the text of sent mail with them.
describe.each(['sqlite', 'postgres'] as const)('what an agent’s work leaves on %s', (engine) => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('is removed once done; open drafts a month after they were last changed; each sender’s last unsubscribe result stays', async () => {
    const clock = fixedClock(new Date());
    const recorded = recordingLogger();
    app = await createTestApp({
      config: { syncWindow: 60 },
      ...(engine === 'postgres' && { pgUrl: await freshPgDatabase() }),
      overrides: { clock, log: recorded.log },
    });
    const a = app;
    const count = async (table: string) =>
      Number(
        (await sql.raw<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`).execute(a.db.kysely))
          .rows[0]!.n,
      );
    const { call } = await agentOn(a);
    const inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await call('sync_inbox', { inboxId }));
    await firstAttachmentLink(call, inboxId);
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    const drafts: Record<string, unknown>[] = [];
    for (const subject of ['Sent', 'Left', 'Shown'])
      drafts.push(
        expectToolOk(
          await call('create_draft', { inboxId, to: 'sam@example.test', subject, text: 'Zebra.' }),
        ),
      );
    expectToolOk(
      await call('send_draft', {
        pendingSendId: drafts[0]!['pendingSendId'],
        approvalCode: drafts[0]!['approvalCode'],
        humanApprovedInChat: true,
      }),
    );
    expectToolOk(await call('show_draft', { inboxId, draftId: (drafts[2]!['draft'] as { id: string }).id }));
    const senders = (
      expectToolOk(await call('review_unsubscribes', { inbox: inboxId, limit: 100 }))['senders'] as {
        messageId: string;
        oneClickAdvertised: boolean;
      }[]
    ).filter((s) => s.oneClickAdvertised);
    const proposed = expectToolOk(
      await call('propose_unsubscribe', { inboxId, messageId: senders[0]!.messageId }),
    );
    expectToolOk(
      await call('confirm_unsubscribe', {
        pendingUnsubscribeId: proposed['pendingUnsubscribeId'],
        approvalCode: proposed['approvalCode'],
        humanApprovedInChat: true,
      }),
    );
    expectToolOk(await call('propose_unsubscribe', { inboxId, messageId: senders[1]!.messageId }));
    const tables = ['drafts', 'pending_sends', 'pending_unsubscribes', 'card_codes', 'secret_links'];
    const before = Object.fromEntries(
      await Promise.all(tables.map(async (t) => [t, await count(t)] as const)),
    );
    expect(before).toEqual({
      drafts: 3,
      pending_sends: 3,
      pending_unsubscribes: 2,
      card_codes: 1,
      secret_links: 1,
    });

    // Nine days on: past a week after every approval ended (a day after it was asked).
    clock.advance(9 * DAY);
    a.startBackground(); // the service's start: the sweep runs at once, then hourly
    const swept = async () => {
      const before = recorded.lines.length;
      await a.services.queue.enqueue('sweep-expired', 'sweep-expired', 0);
      await eventually(
        'the sweep',
        () =>
          Promise.resolve(recorded.lines.slice(before).find((l) => l.includes('removed what has expired'))),
        10_000,
        50,
      );
      return Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await count(t)] as const)));
    };
    expect(await swept()).toEqual({
      drafts: 2, // open: their copies are in the mailbox's Drafts, and the card can still send them
      pending_sends: 0,
      pending_unsubscribes: 1, // what review_unsubscribes shows for that sender
      card_codes: 0,
      secret_links: 0,
    });
    const shown = expectToolOk(await call('review_unsubscribes', { inbox: inboxId, limit: 100 }))[
      'senders'
    ] as {
      messageId: string;
      unsubscribed: { result: string } | null;
    }[];
    expect(shown.find((s) => s.messageId === senders[0]!.messageId)?.unsubscribed?.result).toBe('done');
    // A month on, open drafts nobody sent or changed are forgotten; their copies stay in the mailbox.
    clock.advance(30 * DAY);
    expect(await swept()).toMatchObject({ drafts: 0, pending_unsubscribes: 1 });
  });
});
