import { describe, expect, it } from 'vitest';
import { clientAddressForm, clientNetwork, isPublicAddress } from './ip-address.ts';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '2001:db8::1',
    'not-an-ip',
    '',
    // IPv4 hidden in IPv6 forms that reach it on a dual-stack socket.
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '0:0:0:0:0:0:0:1',
    '::127.0.0.1',
    // The special-purpose ranges of 192.0.0.0/16 and the other documentation and relay ranges, exactly.
    '192.0.0.8',
    '192.0.2.1',
    '192.88.99.1',
    '198.51.100.7',
    '203.0.113.9',
    // IPv4 behind a NAT64 translator or a 6to4 relay, when that IPv4 is not public.
    '64:ff9b::7f00:1',
    '64:ff9b::10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::1',
    '2002:c0a8:101::1',
    // Outside global unicast, or its special-purpose ranges.
    '64:ff9b:1::1',
    '::2',
    '::ffff:0:7f00:1',
    '100::1',
    '4000::1',
    '5f00::1',
    'fec0::1',
    '2001::1',
    '2001:2::1',
    '2001:1ff:ffff::1',
    '3fff::1',
    '3fff:fff::1',
  ])('refuses %s', (a) => expect(isPublicAddress(a)).toBe(false));

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    // Ordinary addresses beside the special ranges: WordPress.com (192.0.64.0/18), Google's resolver in 2001::/16.
    '192.0.78.9',
    '192.0.64.1',
    '192.0.1.1',
    '198.51.101.1',
    '203.0.114.1',
    '2001:4860:4860::8888',
    '2001:200::1',
    '3fff:1000::1',
    // A public IPv4 address reached through NAT64 (DNS64 on an IPv6-only host) or 6to4.
    '64:ff9b::808:808',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
  ])(
    'allows %s',
    (a) => expect(isPublicAddress(a)).toBe(true),
  );
});

describe('clientAddressForm and clientNetwork (decision 0111)', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['203.0.113.7:51234', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::ffff:cb00:7107', '203.0.113.7'],
    ['[2001:DB8:0:0:0:0:0:1]:443', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['unknown', 'unknown'],
    ['not an address', 'not an address'],
  ])('%s is written %s', (raw, form) => {
    expect(clientAddressForm(raw)).toBe(form);
  });

  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['203.0.113.7:9', '203.0.113.7'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['[2001:0db8:0001:0002:ffff::]:8080', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['unknown', 'unknown'],
  ])('%s counts as %s', (raw, network) => {
    expect(clientNetwork(raw)).toBe(network);
  });

  it('one /64 is one client; the next /64 is another', () => {
    expect(clientNetwork('2001:db8:1:2::5')).toBe(clientNetwork('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(clientNetwork('2001:db8:1:3::5')).not.toBe(clientNetwork('2001:db8:1:2::5'));
  });
});
