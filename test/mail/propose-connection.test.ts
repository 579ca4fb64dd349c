import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { DnsMailExchanges } from '../../src/adapters/net/dns-mail-exchanges.ts';
import { startDnsServer, type DnsServer } from '../rig/dns-server.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolError, expectToolOk, type toolCaller } from '../support/tool-caller.ts';
import { WebClient } from '../support/web-client.ts';

// propose_connection for custom domains (contract §4.5): which service handles a domain's mail is read from its MX
// records, served by a DNS server of the test rig to the production lookup. A Google Workspace or Microsoft 365 address
// is proposed for their sign-in, not for IMAP at a host that does not exist; what the person is told depends on
// whether the operator has set that sign-in up.
describe('proposing how to connect an address on a custom domain', () => {
  let dns: DnsServer;
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let owner: WebClient;

  beforeAll(async () => {
    dns = await startDnsServer({
      'acme.test': { mx: [{ priority: 1, exchange: 'smtp.google.com' }] },
      'contoso.test': { mx: [{ priority: 0, exchange: 'contoso-test.mail.protection.outlook.com' }] },
      'family.test': {
        mx: [
          { priority: 10, exchange: 'mx01.mail.icloud.com' },
          { priority: 10, exchange: 'mx02.mail.icloud.com' },
        ],
      },
      'fast.test': { mx: [{ priority: 10, exchange: 'in1-smtp.messagingengine.com' }] },
      'filtered.test': { mx: [{ priority: 10, exchange: 'eu-smtp-inbound-1.mimecast.com' }] },
      'bare.test': 'no-records',
      // müller.test, as DNS names it
      'xn--mller-kva.test': { mx: [{ priority: 1, exchange: 'smtp.google.com' }] },
    });
    // Google sign-in set up by the operator; Microsoft's not.
    app = await createTestApp({
      config: {
        google: {
          clientId: 'client.apps.googleusercontent.test',
          issuer: 'http://127.0.0.1:9',
          gmailApiUrl: 'http://127.0.0.1:9',
          pollSeconds: 30,
        },
      },
      googleClientSecret: 'client-secret',
      // The answer, not the deadline, is under test here (dns-mail-exchanges.test.ts has that): a busy machine's
      // two-second miss turned a Google Workspace domain into an IMAP guess once in a full run.
      overrides: { mailExchanges: new DnsMailExchanges({ servers: [dns.address], deadlineMs: 20_000 }) },
    });
    ({ call, web: owner } = await agentOn(app));
  });
  afterAll(async () => {
    await app.close();
    await dns.stop();
  });

  const propose = async (email: string) => expectToolOk(await call('propose_connection', { email }));

  it('a Google Workspace domain connects with the Google sign-in', async () => {
    const p = await propose('ann@acme.test');
    expect(p).toMatchObject({ provider: 'google', hostedBy: 'Google Workspace' });
    expect(p).not.toHaveProperty('imapHost');
    expect(p['sayToHuman']).toContain(
      'Mail for acme.test is handled by Google Workspace. It connects with a Google sign-in',
    );
    expect(p['agentOnly']).toEqual([
      'Call add_inbox with provider "google".',
      'Then call start_google_oauth.',
    ]);
    // The inbox it proposes is one for the Google sign-in; with Google's sign-in out of reach (here, nothing listens
    // where the test points it) the link is refused in words, not as a failure of the service.
    const added = expectToolOk(
      await call('add_inbox', { label: 'Work', provider: 'google', email: 'ann@acme.test' }),
    );
    const refused = expectToolError(
      await call('start_google_oauth', { inboxId: (added['inbox'] as { id: string }).id }),
      'provider_error',
    );
    expect(refused['message']).toBe('Google sign-in could not be reached; try again in a few minutes.');
    expect(refused['sayToHuman']).toContain("Google's sign-in could not be reached just now.");
  });

  it('a Microsoft 365 domain, with its sign-in not set up here, says what the operator must do', async () => {
    const p = await propose('bob@contoso.test');
    expect(p).toMatchObject({ provider: 'microsoft', hostedBy: 'Microsoft 365' });
    expect(p['sayToHuman']).toContain('Mail for contoso.test is handled by Microsoft 365.');
    expect(p['sayToHuman']).toContain('MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET');
    expect(p['sayToHuman']).not.toContain('coming soon');
  });

  it('an iCloud+ custom domain signs in with the iCloud address; Fastmail at its own IMAP host', async () => {
    const icloud = await propose('cy@family.test');
    expect(icloud).toMatchObject({
      provider: 'icloud',
      imapHost: 'imap.mail.me.com',
      imapPort: 993,
      hostedBy: 'iCloud+',
    });
    expect(icloud['agentOnly']).toEqual([
      'Ask the person for their @icloud.com address, then call add_inbox with provider "icloud" and that address as imapUser.',
      'Then call start_imap_secret_capture and give the person the link.',
    ]);
    const fast = await propose('di@fast.test');
    expect(fast).toMatchObject({ provider: 'imap', imapHost: 'imap.fastmail.com', hostedBy: 'Fastmail' });
    expect(fast['sayToHuman']).toContain('(server: imap.fastmail.com, port 993 — please confirm it)');
  });

  it('a domain it cannot place keeps the conventional IMAP guess; a provider’s own domain asks DNS nothing', async () => {
    for (const domain of ['filtered.test', 'bare.test', 'nowhere.test'])
      expect(await propose(`ed@${domain}`)).toEqual(
        expect.objectContaining({ provider: 'imap', imapHost: `imap.${domain}`, imapPort: 993 }),
      );
    expect(await propose('ed@filtered.test')).not.toHaveProperty('hostedBy');
    const asked = dns.asked.length;
    expect(await propose('fay@gmail.com')).toMatchObject({ provider: 'google' });
    expect(await propose('fay@outlook.com')).toMatchObject({ provider: 'microsoft' });
    expect(dns.asked.length).toBe(asked);
    expectToolError(await call('propose_connection', { email: 'not an address' }), 'invalid_arguments');
  });
  it('a domain beyond ASCII is asked of DNS, and its servers kept, in its ASCII form', async () => {
    expect(await propose('jo@müller.test')).toMatchObject({
      provider: 'google',
      hostedBy: 'Google Workspace',
    });
    expect(dns.asked).toContain('xn--mller-kva.test');
    expect(await propose('jo@bücher.test')).toMatchObject({
      provider: 'imap',
      imapHost: 'imap.xn--bcher-kva.test',
    });
    const added = expectToolOk(
      await call('add_inbox', {
        label: 'Bücher',
        provider: 'imap',
        email: 'jo@bücher.test',
        imapHost: 'Mail.Bücher.test',
        smtpHost: 'Ausgang.Bücher.test',
      }),
    );
    expect(added['inbox']).toMatchObject({
      imapHost: 'mail.xn--bcher-kva.test',
      smtpHost: 'ausgang.xn--bcher-kva.test',
    });
  });

  it('a password page whose server cannot be reached says where the domain’s mail really goes', async () => {
    const tryPassword = async (email: string, imapHost: string, page = new WebClient(app)) => {
      const added = expectToolOk(
        await call('add_inbox', { label: email, provider: 'imap', email, imapHost, imapPort: 1 }),
      );
      const link = expectToolOk(
        await call('start_imap_secret_capture', { inboxId: (added['inbox'] as { id: string }).id }),
      );
      const url = new URL(link['url'] as string);
      await page.get(url.pathname + url.search);
      const res = await page.post('/connect/imap', {
        token: url.searchParams.get('token') ?? '',
        username: email,
        password: 'whatever it is',
        // The servers as the form shows them (the owner's form has them; anyone else's posts are not read).
        imapHost,
        imapPort: '1',
      });
      expect(res.status).toBe(400);
      return page.lastHtml.replace(/\s+/g, ' ');
    };
    // Nothing listens at port 1: the server could not be reached.
    const workspace = await tryPassword('gus@acme.test', '127.0.0.1');
    expect(workspace).toContain('The mail server could not be reached.');
    expect(workspace).toContain(
      'Mail for acme.test is handled by Google Workspace, which connects by signing in with Google, not with a password: remove this inbox on the Inboxes page and add it again as Gmail (or ask your assistant).',
    );
    const fastmail = await tryPassword('hal@fast.test', 'localhost');
    expect(fastmail).toContain(
      'Mail for fast.test is handled by Fastmail, whose IMAP server is imap.fastmail.com',
    );
    // The account's owner, signed in, corrects the server on the page itself (decision 0095).
    expect(await tryPassword('ian@fast.test', 'localhost', owner)).toContain(
      'Mail for fast.test is handled by Fastmail, whose IMAP server is imap.fastmail.com: put it below as the incoming server.',
    );
    const unknown = await tryPassword('ida@filtered.test', 'localhost');
    expect(unknown).toContain('The mail server could not be reached.');
    expect(unknown).not.toContain('is handled by');
  });
});
