import { describe, expect, it } from 'vitest';
import {
  defaultSmtpHost,
  detectProvider,
  providerFromMailExchanges,
  submissionUser,
} from './provider-detection.ts';

describe('the provider behind an address', () => {
  it('knows the providers’ own domains, and guesses IMAP at the conventional host for any other', () => {
    expect(detectProvider('ann@googlemail.com')).toMatchObject({ provider: 'google', hostedBy: null });
    for (const domain of [
      'live.co.uk',
      'outlook.com',
      'hotmail.fr',
      'live.com.au',
      'msn.com',
      'outlook.com.br',
    ])
      expect(detectProvider(`ann@${domain}`), domain).toMatchObject({ provider: 'microsoft' });
    // A domain under such a name is someone else's: the conventional guess, and its MX records when looked up.
    for (const domain of ['live.example.edu', 'outlook.acme.com', 'hotmail.example.co.uk'])
      expect(detectProvider(`ann@${domain}`), domain).toMatchObject({
        provider: 'imap',
        imapHost: `imap.${domain}`,
      });
    expect(detectProvider('ann@me.com')).toMatchObject({ provider: 'icloud', imapHost: 'imap.mail.me.com' });
    // Yahoo Mail is not at imap.<domain>, whichever of its domains; Yahoo Japan is another service.
    for (const domain of [
      'yahoo.com',
      'yahoo.co.uk',
      'yahoo.fr',
      'yahoo.com.au',
      'ymail.com',
      'rocketmail.com',
    ])
      expect(detectProvider(`ann@${domain}`), domain).toMatchObject({
        provider: 'imap',
        imapHost: 'imap.mail.yahoo.com',
      });
    expect(defaultSmtpHost('imap.mail.yahoo.com')).toBe('smtp.mail.yahoo.com');
    expect(detectProvider('ann@yahoo.co.jp')).toMatchObject({ imapHost: 'imap.yahoo.co.jp' });
    expect(detectProvider('ann@acme.example')).toEqual({
      provider: 'imap',
      imapHost: 'imap.acme.example',
      imapPort: 993,
      hostedBy: null,
    });
  });

  it('tells a custom domain’s mail service from where its MX records point', () => {
    const by = (...mx: string[]) => providerFromMailExchanges(mx);
    expect(by('smtp.google.com')).toEqual({
      provider: 'google',
      imapHost: null,
      imapPort: null,
      hostedBy: 'Google Workspace',
    });
    expect(by('ASPMX.L.GOOGLE.COM.', 'alt1.aspmx.l.google.com')).toMatchObject({ provider: 'google' });
    expect(by('aspmx2.googlemail.com')).toMatchObject({ provider: 'google' });
    expect(by('acme-example.mail.protection.outlook.com')).toMatchObject({
      provider: 'microsoft',
      hostedBy: 'Microsoft 365',
    });
    expect(by('acme-example.o-v1.mx.microsoft')).toMatchObject({ provider: 'microsoft' });
    expect(by('mx02.mail.icloud.com')).toEqual({
      provider: 'icloud',
      imapHost: 'imap.mail.me.com',
      imapPort: 993,
      hostedBy: 'iCloud+',
    });
    expect(by('in2-smtp.messagingengine.com')).toMatchObject({
      provider: 'imap',
      imapHost: 'imap.fastmail.com',
      hostedBy: 'Fastmail',
    });
    expect(by('mx.zoho.eu')).toMatchObject({ imapHost: 'imappro.zoho.eu', hostedBy: 'Zoho Mail' });
    expect(by('mx3.zoho.com.au')).toMatchObject({ imapHost: 'imappro.zoho.com.au' });
    expect(by('mx1.privateemail.com')).toMatchObject({ imapHost: 'mail.privateemail.com' });
  });

  it('the first host it knows decides; look-alikes and filtering services in front are not recognised', () => {
    expect(providerFromMailExchanges(['mx.unknown.example', 'alt1.aspmx.l.google.com'])).toMatchObject({
      provider: 'google',
    });
    for (const host of [
      'evilgoogle.com',
      'google.com.evil.example',
      'mail.protection.outlook.com.evil.example',
      'notmessagingengine.com',
      'mx.zoho.evil.example',
      'eu-smtp-inbound-1.mimecast.com',
    ])
      expect(providerFromMailExchanges([host]), host).toBeUndefined();
    expect(providerFromMailExchanges([])).toBeUndefined();
  });

  it('guesses the submission server beside an IMAP server, as the services name their twins', () => {
    expect(defaultSmtpHost('imap.example.com')).toBe('smtp.example.com');
    expect(defaultSmtpHost('imappro.zoho.eu')).toBe('smtppro.zoho.eu');
    expect(defaultSmtpHost('imap-mail.outlook.com')).toBe('smtp-mail.outlook.com');
    expect(defaultSmtpHost('mail.example.com')).toBe('mail.example.com');
    expect(defaultSmtpHost('imapx.example.com')).toBe('imapx.example.com');
    expect(defaultSmtpHost('imap.example.imap.test')).toBe('smtp.example.imap.test');
  });

  it('logs in to iCloud’s submission server with the full address where the person gave the name part', () => {
    expect(submissionUser('icloud', 'emilyparker')).toBe('emilyparker@icloud.com');
    expect(submissionUser('icloud', 'emily@me.com')).toBe('emily@me.com');
    expect(submissionUser('imap', 'emilyparker')).toBe('emilyparker');
  });
});
