import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImapConnector } from '../../src/adapters/mail/imap/imap-connector.ts';
import { MailAuthError, MailProviderError } from '../../src/core/mail/mail-ports.ts';
import { startDovecot, type Dovecot } from '../rig/index.ts';
import { testTls } from '../rig/https-sink.ts';
import { sendingInbox, type SendingInbox } from '../support/sending-inbox.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// A name with several addresses whose first refuses the connection at once — an IPv6 address on a host without an
// IPv6 route, one server of several down — is reached at its next vetted address, for IMAP and for SMTP alike. Nothing
// listens on 127.0.0.2 here (the servers are on 127.0.0.1 only): a connection there is refused.
const NAME = 'mail.example.test';
const twoAddresses = (first: string) => (name: string) =>
  Promise.resolve(name === NAME ? [first, '127.0.0.1'] : []);

describe('IMAP, a server name whose first address refuses the connection', () => {
  let dovecot: Dovecot;
  beforeAll(async () => {
    dovecot = await startDovecot({ users: { nia: 'nia-password' } });
  });
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- beforeAll may have failed
    await dovecot?.stop();
  });

  const session = (lookup: (name: string) => Promise<string[]>) =>
    new ImapConnector({ insecureHosts: [NAME], lookup, pooledIdleMs: 0 }).connect(
      { host: NAME, port: dovecot.port },
      { kind: 'password', username: 'nia', password: 'nia-password' },
    );

  it('logs in at the next address', async () => {
    const s = await session(twoAddresses('127.0.0.2'));
    expect((await s.listFolders()).map((f) => f.path)).toContain('INBOX');
    await s.close();
  });

  it('stays with a server that answered: a refused password is not taken to the next address', async () => {
    const wrong = new ImapConnector({
      insecureHosts: [NAME],
      lookup: (name) => Promise.resolve(name === NAME ? ['127.0.0.1', '127.0.0.2'] : []),
      pooledIdleMs: 0,
    }).connect({ host: NAME, port: dovecot.port }, { kind: 'password', username: 'nia', password: 'wrong' });
    await expect(wrong).rejects.toBeInstanceOf(MailAuthError);
  });

  it('says the server refused when every address does', async () => {
    const all = (name: string) => Promise.resolve(name === NAME ? ['127.0.0.2', '127.0.0.3'] : []);
    const failed = await session(all).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(MailProviderError);
    expect((failed as Error).message).toContain('refused the connection');
  });
});

describe('SMTP, a submission server name whose first address refuses the connection', () => {
  let box: SendingInbox;
  beforeAll(async () => {
    const tls = testTls([NAME]);
    box = await sendingInbox('noa', 'noa-password', {
      sink: { tls },
      smtpHost: NAME,
      app: {
        overrides: {
          smtp: { lookup: twoAddresses('127.0.0.2'), addressPolicy: (a) => a.startsWith('127.'), ca: tls.ca },
        },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await box.close();
  });

  it('sends once, through the next address', async () => {
    const sent = expectToolOk(await box.send(await box.draft('Through the next address')));
    expect(sent).toMatchObject({ sent: true });
    await box.sink.waitFor(1);
    expect(box.sink.received).toHaveLength(1);
  });
});
