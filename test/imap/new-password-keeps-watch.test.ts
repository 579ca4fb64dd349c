import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMessage } from '../rig/index.ts';
import { deliverTo } from '../support/imap-inbox.ts';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0095. A person who gives a connected inbox a new password (an iCloud app-specific password replaced, a
// password changed at the provider) left its watcher logging in with the old one. The watcher's IDLE connection ran on
// until the server dropped it; its next login was refused and the watch ended without a word — new mail then waited
// for the periodic sync (five minutes by default) for as long as the process ran. Every node now compares what each of
// its watchers started with against the inbox as stored, and starts a stale one again.
const USER = 'rosa';
const SECOND = 1_100; // Dovecot looks at a passwd-file at most once a second
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mail = (n: number) =>
  buildMessage({
    from: { address: 'news@example.org' },
    to: [{ address: `${USER}@example.test` }],
    subject: `Letter ${String(n)}`,
    date: new Date(Date.UTC(2026, 10, n)),
    messageId: `<letter-${String(n)}@rig.test>`,
    text: 'Hello.',
  });

describe.each(['SQLite', 'PostgreSQL'])('a new password for a connected inbox, on %s', (engine) => {
  let box: InboxWithMail;
  beforeAll(async () => {
    box = await inboxWithMail(engine, USER, [mail(1)]);
  }, 60_000);
  afterAll(async () => {
    await box.close();
  });
  const subjects = async () =>
    (
      expectToolOk(await box.call('list_messages', { inboxId: box.inboxId }))['messages'] as {
        subject: string;
      }[]
    ).map((m) => m.subject);

  it('the watcher logs in with it: mail that arrives after the old one stopped working is listed within seconds', async () => {
    await expect.poll(() => box.app.services.scheduler.watching(), { timeout: 10_000 }).toBe(1);
    const link = expectToolOk(await box.call('start_imap_secret_capture', { inboxId: box.inboxId }));
    const token = new URL(link['url'] as string).searchParams.get('token') ?? '';
    await box.dovecot.addUser(USER, 'rotated-password');
    await pause(SECOND);
    const done = await box.app.services.tools.inboxes.completeSecretCapture(token, '', 'rotated-password');
    expect(done.ok).toBe(true);
    await pause(SECOND);
    await box.dovecot.kick(USER); // every connection logged in with the old password ends
    await pause(3 * SECOND); // a watcher with the old password has met the refusal by now
    await deliverTo(box.dovecot, USER, 'rotated-password')(mail(2));
    // The periodic sync is minutes away: only a watcher hears this.
    await expect.poll(subjects, { timeout: 15_000, interval: 250 }).toContain('Letter 2');
  }, 60_000);

  it('a password changed at the provider alone: the watcher’s refused login has the inbox say so within seconds', async () => {
    await expect.poll(() => box.app.services.scheduler.watching(), { timeout: 10_000 }).toBe(1);
    await box.dovecot.addUser(USER, 'changed-elsewhere');
    await pause(SECOND);
    await box.dovecot.kick(USER); // the watcher logs in again, with the password the service holds
    // Not at the next periodic sync, minutes away: the refusal asks for a sync, which marks the inbox.
    await expect
      .poll(async () => expectToolOk(await box.call('get_connection_status', { inboxId: box.inboxId })), {
        timeout: 15_000,
        interval: 250,
      })
      .toMatchObject({ needsReconnect: true });
    // The next pass of the watchers (every few seconds in a running service) stops it.
    await box.app.services.scheduler.reconcile();
    expect(await box.app.services.scheduler.watching()).toBe(0);
  }, 60_000);
});
