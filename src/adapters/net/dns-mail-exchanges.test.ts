import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsServer } from '../../../test/rig/dns-server.ts';
import { DnsMailExchanges } from './dns-mail-exchanges.ts';

// Node's resolver against a DNS server of the test rig: what a domain's MX records say, and nothing when DNS says
// nothing — no such domain, no records, or no answer at all within the deadline.
describe('a domain’s mail exchanges from DNS', () => {
  let dns: DnsServer;
  let lookup: DnsMailExchanges;
  beforeAll(async () => {
    dns = await startDnsServer({
      'acme.test': {
        mx: [
          { priority: 20, exchange: 'ALT2.ASPMX.L.GOOGLE.COM' },
          { priority: 1, exchange: 'aspmx.l.google.com' },
          { priority: 10, exchange: 'alt1.aspmx.l.google.com' },
        ],
      },
      'bare.test': 'no-records',
      'slow.test': 'silent',
    });
    lookup = new DnsMailExchanges({ servers: [dns.address], deadlineMs: 400 });
  });
  afterAll(() => dns.stop());

  it('lists the hosts most preferred first, in lower case', async () => {
    expect(await lookup.exchangesOf('acme.test')).toEqual([
      'aspmx.l.google.com',
      'alt1.aspmx.l.google.com',
      'alt2.aspmx.l.google.com',
    ]);
  });

  it('has none for a domain without records, one that does not exist, or one DNS does not answer for', async () => {
    expect(await lookup.exchangesOf('bare.test')).toEqual([]);
    expect(await lookup.exchangesOf('nowhere.test')).toEqual([]);
    expect(await lookup.exchangesOf('slow.test')).toEqual([]);
    expect(dns.asked).toEqual(expect.arrayContaining(['bare.test', 'nowhere.test', 'slow.test']));
    // A lookup after one that ran out of time is answered as ever.
    expect(await lookup.exchangesOf('acme.test')).toHaveLength(3);
  });
});
