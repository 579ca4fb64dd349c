import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpSubmitter } from '../../src/adapters/mail/smtp/smtp-submitter.ts';
import type { AccountId } from '../../src/core/accounts/account.ts';
import type { CredentialVault } from '../../src/core/inboxes/credential-vault.ts';
import type { Inbox, InboxId } from '../../src/core/inboxes/inbox.ts';
import { SubmitRefusedError } from '../../src/core/sending/mail-submitter.ts';
import { testTls } from '../rig/https-sink.ts';
import { buildMessage, startSmtpSink, type SmtpSink } from '../rig/index.ts';

// Decision 0081, for sending: a submission server of the person's own whose certificate this machine does not trust.
// Refused before anything is handed over (nothing went out), in words that say it was the certificate — it said
// "the mail server does not offer TLS", which it does.
const USER = 'ann';
const PASSWORD = 'smtp-own-cert';

describe('an SMTP server with a certificate of its own', () => {
  const tls = testTls(['localhost']);
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink({ users: { [USER]: PASSWORD }, tls: { cert: tls.cert, key: tls.key } });
  });
  afterAll(async () => {
    await sink.stop();
  });

  it('is refused, nothing sent, in words that name the certificate and what the operator can do', async () => {
    const vault: CredentialVault = {
      put: () => Promise.resolve(),
      get: () => Promise.resolve({ kind: 'password', username: USER, password: PASSWORD }),
      delete: () => Promise.resolve(),
    };
    const now = new Date();
    const inbox: Inbox = {
      id: 'inbox_aaaaaaaaaaaaaaaaaaaa' as InboxId,
      accountId: 'acct_x' as AccountId,
      label: 'My NAS',
      provider: 'imap',
      email: 'ann@example.test',
      imapHost: 'localhost',
      imapPort: 143,
      imapUser: USER,
      smtpHost: 'localhost',
      smtpPort: sink.port,
      isDemo: false,
      paused: false,
      connectionStatus: 'connected',
      lastError: null,
      senderName: null,
      credentialSetAt: null,
      createdAt: now,
      updatedAt: now,
    };
    // A LAN server: its private address allowed, STARTTLS used as offered (and its certificate checked).
    const submitter = new SmtpSubmitter({ vault, insecureHosts: ['localhost'], timeoutMs: 10_000 });
    const raw = buildMessage({
      from: { address: 'ann@example.test', name: 'Ann' },
      to: [{ address: 'bob@example.test' }],
      subject: 'Hi',
      date: now,
      messageId: '<own-cert@rig.test>',
      text: 'Hello',
    });
    const sent = submitter.submit(inbox, {
      envelopeFrom: 'ann@example.test',
      recipients: ['bob@example.test'],
      raw,
    });
    await expect(sent).rejects.toBeInstanceOf(SubmitRefusedError);
    await expect(sent).rejects.toThrow(
      /^the TLS certificate of localhost could not be verified: it was issued by an authority this machine does not know\. .*NODE_EXTRA_CA_CERTS$/,
    );
    expect(sink.received).toEqual([]);
  });
});
