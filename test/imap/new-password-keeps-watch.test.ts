import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../rig/util.ts';
import { deliverTo, letterTo, PASSWORD_FILE_SECOND } from '../support/imap-inbox.ts';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0095. A person who gives a connected inbox a new password (an iCloud app-specific password replaced, a
// password changed at the provider) left its watcher logging in with the old one. The watcher's IDLE connection ran on
// until the server dropped it; its next login was refused and the watch ended without a word — new mail then waited
// for the periodic sync (five minutes by default) for as long as the process ran. Every node now compares what each of
// its watchers started with against the inbox as stored, and starts a stale one again.
const USER = 'rosa';
const mail = (n: number) => letterTo(USER, n);

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
    await sleep(PASSWORD_FILE_SECOND);
    const done = await box.app.services.tools.inboxes.completeSecretCapture(token, '', 'rotated-password');
    expect(done.ok).toBe(true);
    await sleep(PASSWORD_FILE_SECOND);
    await box.dovecot.kick(USER); // every connection logged in with the old password ends
    await sleep(3 * PASSWORD_FILE_SECOND); // a watcher with the old password has met the refusal by now
    await deliverTo(box.dovecot, USER, 'rotated-password')(mail(2));
    // The periodic sync is minutes away: only a watcher hears this.
    await expect.poll(subjects, { timeout: 15_000, interval: 250 }).toContain('Letter 2');
  }, 60_000);

  it('a password changed at the provider alone: the watcher’s refused login has the inbox say so within seconds', async () => {
    await expect.poll(() => box.app.services.scheduler.watching(), { timeout: 10_000 }).toBe(1);
    await box.dovecot.addUser(USER, 'changed-elsewhere');
    await sleep(PASSWORD_FILE_SECOND);
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
