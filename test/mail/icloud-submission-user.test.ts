import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpSubmitter } from '../../src/adapters/mail/smtp/smtp-submitter.ts';
import type { AccountId } from '../../src/core/accounts/account.ts';
import type { CredentialVault } from '../../src/core/inboxes/credential-vault.ts';
import { newInbox } from '../../src/core/inboxes/inbox-store.contract.ts';
import type { Inbox } from '../../src/core/inboxes/inbox.ts';
import { buildMessage, startSmtpSink, type SmtpSink } from '../rig/index.ts';

// Decision 0095. Apple tells people to log in to iCloud's IMAP server with the name part of their address
// ("emilyparker"), and to its submission server with the full address only. A person who typed the name part on the
// password page could read, and every send was refused "the mail server refused the login".
describe('sending from iCloud with the name part of the address as the login', () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink({ users: { 'emilyparker@icloud.com': 'app-specific' } });
  });
  afterAll(async () => {
    await sink.stop();
  });

  it('logs in to the submission server with the full iCloud address', async () => {
    const vault: CredentialVault = {
      put: () => Promise.resolve(),
      get: () => Promise.resolve({ kind: 'password', username: 'emilyparker', password: 'app-specific' }),
      delete: () => Promise.resolve(),
    };
    const now = new Date();
    const inbox: Inbox = {
      ...newInbox('acct_x' as AccountId, {
        provider: 'icloud',
        email: 'emilyparker@icloud.com',
        imapHost: 'imap.mail.me.com',
        // The test's stand-in for smtp.mail.me.com: a local sink the operator allowed.
        smtpHost: 'localhost',
        smtpPort: sink.port,
        connectionStatus: 'connected',
      }),
      paused: false,
      lastError: null,
      senderName: null,
      credentialSetAt: null,
      updatedAt: now,
    };
    const submitter = new SmtpSubmitter({ vault, insecureHosts: ['localhost'], timeoutMs: 10_000 });
    const raw = buildMessage({
      from: { address: 'emilyparker@icloud.com' },
      to: [{ address: 'bob@example.test' }],
      subject: 'Hi',
      date: now,
      messageId: '<icloud-user@rig.test>',
      text: 'Hello',
    });
    await submitter.submit(inbox, { envelopeFrom: inbox.email, recipients: ['bob@example.test'], raw });
    expect(sink.received.map((m) => m.auth)).toEqual(['emilyparker@icloud.com']);
    // A test login, as the password page makes one: refused in its words when the password is wrong.
    expect(
      await submitter.testLogin(
        { host: 'localhost', port: sink.port },
        { kind: 'password', username: 'emilyparker@icloud.com', password: 'app-specific' },
      ),
    ).toBeUndefined();
    expect(
      await submitter.testLogin(
        { host: 'localhost', port: sink.port },
        { kind: 'password', username: 'emilyparker@icloud.com', password: 'wrong' },
      ),
    ).toMatchObject({ reason: 'auth_failed' });
  });
});
