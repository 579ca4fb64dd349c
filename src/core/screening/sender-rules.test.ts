import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE } from '../profile/triage-profile.ts';
import { blockTarget, isBlocked, isKnownGood } from './sender-rules.ts';

const none = { vipEntries: [], ownAddresses: [], knownGood: [] };

describe('what a report blocks', () => {
  it('the domain of an ordinary sender', () => {
    expect(blockTarget('Offers@Deals.Example', none)).toEqual({ kind: 'domain', value: 'deals.example' });
  });

  it('only the address at a big free-mail domain', () => {
    expect(blockTarget('scammer@gmail.com', none)).toEqual({
      kind: 'address',
      value: 'scammer@gmail.com',
      because: 'free_mail',
    });
    expect(blockTarget('x@outlook.com', none).kind).toBe('address');
  });

  it('only the address at a free-mail family’s domain in any country, and the domain beside them', () => {
    for (const domain of [
      'hotmail.fr',
      'live.it',
      'outlook.com.br',
      'yahoo.es',
      'gmx.at',
      'aol.co.uk',
      'yandex.ua',
      'bk.ru',
    ])
      expect(blockTarget(`x@${domain}`, none), domain).toMatchObject({
        kind: 'address',
        because: 'free_mail',
      });
    for (const domain of ['live.example.edu', 'gmx-shop.example', 'mail.example.ru'])
      expect(blockTarget(`x@${domain}`, none), domain).toEqual({ kind: 'domain', value: domain });
  });

  it('only the address where a VIP, the person or a known-good sender lives, parent and subdomains alike', () => {
    expect(blockTarget('a@corp.example', { ...none, vipEntries: ['boss@corp.example'] })).toMatchObject({
      because: 'vip_domain',
    });
    expect(blockTarget('a@mail.corp.example', { ...none, vipEntries: ['corp.example'] })).toMatchObject({
      because: 'vip_domain',
    });
    expect(blockTarget('a@corp.example', { ...none, vipEntries: ['eu.corp.example'] })).toMatchObject({
      because: 'vip_domain',
    });
    expect(blockTarget('spoof@me.example', { ...none, ownAddresses: ['alex@me.example'] })).toMatchObject({
      because: 'own_domain',
    });
    expect(blockTarget('a@shop.example', { ...none, knownGood: ['orders@shop.example'] })).toMatchObject({
      because: 'known_good_domain',
    });
    // A look-alike is not a subdomain.
    expect(blockTarget('a@notcorp.example', { ...none, vipEntries: ['corp.example'] }).kind).toBe('domain');
  });
});

describe('the blocklist', () => {
  const junk = {
    ...DEFAULT_PROFILE.defaults.junk,
    blockedDomains: ['spam.example'],
    blockedSenders: ['pest@gmail.com'],
    knownGoodSenders: ['friend@gmail.com'],
  };

  it('blocks a domain with its subdomains, and single addresses', () => {
    expect(isBlocked('a@spam.example', junk)).toBe(true);
    expect(isBlocked('a@mx.spam.example', junk)).toBe(true);
    expect(isBlocked('a@notspam.example', junk)).toBe(false);
    expect(isBlocked('Pest@Gmail.com', junk)).toBe(true);
    expect(isBlocked('other@gmail.com', junk)).toBe(false);
    expect(isKnownGood('FRIEND@gmail.com', junk)).toBe(true);
  });
});

describe('an internationalised domain in either spelling (decision 0070)', () => {
  const junk = {
    ...DEFAULT_PROFILE.defaults.junk,
    blockedDomains: ['bücher.example'],
    blockedSenders: ['pest@xn--mller-kva.de'],
    knownGoodSenders: ['anna@müller.de'],
  };

  it('the blocklist and the known-good list match the header’s Punycode and the mail client’s Unicode alike', () => {
    expect(isBlocked('x@xn--bcher-kva.example', junk)).toBe(true);
    expect(isBlocked('x@shop.Bücher.example', junk)).toBe(true);
    expect(isBlocked('pest@müller.de', junk)).toBe(true);
    expect(isKnownGood('Anna@xn--mller-kva.de', junk)).toBe(true);
    expect(isKnownGood('anna@muller.de', junk)).toBe(false);
  });

  it('a report blocks the domain in its ASCII form, and spares one where a VIP lives in the other spelling', () => {
    expect(blockTarget('x@Bücher.example', none)).toEqual({ kind: 'domain', value: 'xn--bcher-kva.example' });
    expect(blockTarget('x@xn--mller-kva.de', { ...none, vipEntries: ['müller.de'] })).toMatchObject({
      because: 'vip_domain',
    });
  });
});
