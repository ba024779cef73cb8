import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { addressBucket, clientAddress } from '../../../src/domain/client-address.js';

/** Ways of writing 9.9.9.9 that each once escaped the limit 9.9.9.9 was at (outside review, F5). */
const NINES = ['9.9.9.9', ' 9.9.9.9 ', '9.9.9.9:1234', '[9.9.9.9]', '[9.9.9.9]:443', '::ffff:9.9.9.9', '::FFFF:9.9.9.9', '::ffff:909:909', '0:0:0:0:0:ffff:9.9.9.9', '0:0:0:0:0:ffff:0909:0909'];
/** Text a forwarded header may carry that is no address: never a bucket of its own. */
const NOT_ADDRESSES = [
  '09.9.9.9', '1.2.3.4\u0085', '1.2.3.4\u0000', 'unknown', '"><script>', 'x'.repeat(300), '', '256.1.1.1', '1.2.3', '1.2.3.4.5', '9.9.9.9:', '9.9.9.9:123456',
  '[9.9.9.9', 'not:an::address::at all', '1::2::3', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7::8', '::ffff:999.9.9.9', '::ffff:09.9.9.9', 'fe80::1%\u0085', '12345::1',
];

describe('clientAddress', () => {
  it('writes every spelling of one IPv4 address as that address', () => {
    expect(NINES.map(clientAddress)).toEqual(NINES.map(() => '9.9.9.9'));
  });

  it('writes IPv6 in its RFC 5952 form, without a zone, and takes off brackets and a port only around brackets', () => {
    expect(clientAddress('2001:0DB8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(clientAddress('[2001:db8::1]:8080')).toBe('2001:db8::1');
    expect(clientAddress('fe80::1%eth0')).toBe('fe80::1');
    expect(clientAddress('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(clientAddress('::1')).toBe('::1');
    expect(clientAddress('::')).toBe('::');
    expect(clientAddress('64:ff9b::192.0.2.1')).toBe('64:ff9b::c000:201');
    // A bare IPv6 keeps its last group: ::1:80 is an address, not ::1 with a port.
    expect(clientAddress('::1:80')).toBe('::1:80');
  });

  it('is no address for text that is not an IP, and agrees with node:net isIP on what is one', () => {
    expect(NOT_ADDRESSES.map(clientAddress)).toEqual(NOT_ADDRESSES.map(() => null));
    expect(clientAddress(undefined)).toBeNull();
    const bare = ['9.9.9.9', '09.9.9.9', '255.255.255.255', '256.0.0.0', '::', '::1', '1::', '2001:db8::1', '::ffff:1.2.3.4', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9',
      '1::2::3', '1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:7:1.2.3.4', '::1.2.3', 'g::1', '12345::1', 'unknown', ''];
    expect(bare.map((a) => clientAddress(a) !== null)).toEqual(bare.map((a) => isIP(a) !== 0));
  });
});

describe('addressBucket', () => {
  it('puts every spelling of one IPv4 address in one bucket, the address itself', () => {
    expect(new Set(NINES.map(addressBucket))).toEqual(new Set(['9.9.9.9']));
    expect(addressBucket('10.0.0.1')).not.toBe(addressBucket('10.0.0.2'));
  });

  it('groups IPv6 by its /56 prefix, however the address is written', () => {
    const bucket = '20010db8abcd12::/56';
    for (const ip of ['2001:db8:abcd:1200::1', '2001:DB8:ABCD:12ff:ffff:ffff:ffff:ffff', '2001:0db8:abcd:1234:0:0:0:1', '2001:db8:abcd:12aa::1%eth0', '[2001:db8:abcd:1200::1]:443']) {
      expect(addressBucket(ip)).toBe(bucket);
    }
    expect(addressBucket('2001:db8:abcd:1300::1')).not.toBe(bucket);
    expect(addressBucket('2001:db8:abcd:12::1')).not.toBe(bucket);
    expect(addressBucket('64:ff9b::192.0.2.1')).toBe('0064ff9b000000::/56');
    expect(addressBucket('::1')).toBe('00000000000000::/56');
  });

  it('puts text that is no address in the one bucket `unknown`, never a bucket of its own', () => {
    expect(new Set([...NOT_ADDRESSES, undefined].map(addressBucket))).toEqual(new Set(['unknown']));
  });
});
