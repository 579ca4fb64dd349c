import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboxId } from '../../src/core/inboxes/inbox.ts';
import { sleep } from '../rig/util.ts';
import { letterTo } from '../support/imap-inbox.ts';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0124. Once an account's agents are refused (its trial ended, its payment failed), nothing can read its
// mail — yet every node went on watching its mailbox and syncing it every few minutes, for good: the person's mail
// fetched and indexed, the operator's connections and work spent, for an account nobody used. Background sync now
// keeps fresh only the inboxes of accounts whose agents may act, and picks the others up again when they may.
const USER = 'lena';
const mail = (n: number) => letterTo(USER, n);

describe.each(['SQLite', 'PostgreSQL'])('an account whose agents are refused, on %s', (engine) => {
  let box: InboxWithMail;
  beforeAll(async () => {
    box = await inboxWithMail(engine, USER, [mail(1)]);
  }, 60_000);
  afterAll(async () => {
    await box.close();
  });
  /** The messages the index holds for the inbox (agents cannot list them while they are refused). */
  const indexed = async () =>
    (
      await box.app.db.kysely
        .selectFrom('messages')
        .select('id')
        .where('inbox_id', '=', box.inboxId)
        .execute()
    ).length;

  it('is not watched or synced until they may act again, then catches up', async () => {
    const { scheduler } = box.app.services;
    await expect.poll(() => scheduler.watching(), { timeout: 10_000 }).toBe(1);
    const accountId = (await box.app.stores.inboxes.syncable(box.inboxId as InboxId, new Date()))!.accountId;
    const subjects = async () =>
      (
        expectToolOk(await box.call('list_messages', { inboxId: box.inboxId }))['messages'] as {
          subject: string;
        }[]
      ).map((m) => m.subject);
    expect(await subjects()).toEqual(['Letter 1']);

    await box.app.stores.accounts.setPlan(accountId, 'trial', new Date(Date.now() - 1000));
    await scheduler.reconcile(); // every few seconds in a running service
    expect(await scheduler.watching()).toBe(0);
    // A sync that read the inbox before the plan changed may still be running (the start's first round, late on a busy
    // machine: a fresh clone's run on PostgreSQL indexed the next letter so): it finishes before the letter arrives.
    await expect.poll(() => box.app.services.queue.depth(), { timeout: 15_000, interval: 100 }).toBe(0);
    await box.deliver(mail(2));
    await scheduler.tick(); // the periodic sync, every five minutes in a running service
    await sleep(2000); // what a sync would take here, several times over
    expect(await indexed()).toBe(1);

    await box.app.stores.accounts.setPlan(accountId, 'pro', null);
    await scheduler.reconcile();
    expect(await scheduler.watching()).toBe(1);
    // The watcher's first sync finds what arrived meanwhile.
    await expect.poll(subjects, { timeout: 15_000, interval: 250 }).toContain('Letter 2');
  }, 60_000);
});
