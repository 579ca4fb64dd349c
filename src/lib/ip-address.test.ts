import { describe, expect, it } from 'vitest';
import { isPublicAddress } from './ip-address.ts';

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
  ])('refuses %s', (a) => expect(isPublicAddress(a)).toBe(false));

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'allows %s',
    (a) => expect(isPublicAddress(a)).toBe(true),
  );
});
