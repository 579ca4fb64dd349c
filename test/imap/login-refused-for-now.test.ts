import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../rig/util.ts';
import { letterTo, PASSWORD_FILE_SECOND } from '../support/imap-inbox.ts';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0085: a server that refuses a login for a failure of its own — Dovecot's "NO [UNAVAILABLE] Temporary
// authentication failure" while its password database is away, Gmail's "[UNAVAILABLE] Temporary System Error" — was
// taken for a refused password: the inbox went to "needs reconnecting" and stayed there after the server came back,
// its watcher stopped, until the person typed the same password again. Here the password database of a real Dovecot
// fails for the user (test/rig/dovecot.ts passwordDatabaseDown).
const USER = 'una';
const mail = (n: number) => letterTo(USER, n);

describe('a login the server refuses for a failure of its own', () => {
  let box: InboxWithMail;
  beforeAll(async () => {
    box = await inboxWithMail('SQLite', USER, [mail(1)]);
  }, 60_000);
  afterAll(async () => {
    await box.close();
  });

  const status = async () => expectToolOk(await box.call('get_connection_status', { inboxId: box.inboxId }));
  const subjects = async () =>
    (
      expectToolOk(await box.call('list_messages', { inboxId: box.inboxId }))['messages'] as {
        subject: string;
      }[]
    ).map((m) => m.subject);

  it('fails the sync in words and leaves the inbox connected; the next sync after it works, with no reconnecting', async () => {
    box.dovecot.passwordDatabaseDown(USER, true);
    await sleep(PASSWORD_FILE_SECOND);
    await box.dovecot.kick(USER); // the logins kept for reuse end: the next sync logs in
    await sleep(300); // …once the pool has heard they closed
    const failed = await box.call('sync_inbox', { inboxId: box.inboxId });
    expect(failed.body).toMatchObject({ error: 'provider_error' });
    expect(failed.body['message']).toContain('could not check the login just now');
    expect(await status()).toMatchObject({ connectionStatus: 'connected', needsReconnect: false });
    expect((await status())['lastError']).toContain('says nothing about the password');
    box.dovecot.passwordDatabaseDown(USER, false);
    await sleep(PASSWORD_FILE_SECOND);
    expectToolOk(await box.call('sync_inbox', { inboxId: box.inboxId }));
  });

  it('keeps watching: mail that arrives after the server is back is listed without anyone reconnecting', async () => {
    box.dovecot.passwordDatabaseDown(USER, true);
    await sleep(PASSWORD_FILE_SECOND);
    await box.dovecot.kick(USER); // the watcher's IDLE ends and its next login meets the failure
    await sleep(2 * PASSWORD_FILE_SECOND);
    box.dovecot.passwordDatabaseDown(USER, false);
    await sleep(PASSWORD_FILE_SECOND);
    await box.deliver(mail(2));
    await expect.poll(subjects, { timeout: 20_000, interval: 250 }).toContain('Letter 2');
    expect(await status()).toMatchObject({ connectionStatus: 'connected' });
  }, 40_000);

  it('a password typed while the server fails is not called wrong', async () => {
    const link = expectToolOk(await box.call('start_imap_secret_capture', { inboxId: box.inboxId }));
    const token = new URL(link['url'] as string).searchParams.get('token') ?? '';
    box.dovecot.passwordDatabaseDown(USER, true);
    await sleep(PASSWORD_FILE_SECOND);
    const refused = await box.app.services.tools.inboxes.completeSecretCapture(token, '', `${USER}-password`);
    expect(refused).toMatchObject({ ok: false, error: { reason: 'unavailable' } });
    box.dovecot.passwordDatabaseDown(USER, false);
    await sleep(PASSWORD_FILE_SECOND);
    const done = await box.app.services.tools.inboxes.completeSecretCapture(token, '', `${USER}-password`);
    expect(done.ok).toBe(true);
  });
});
