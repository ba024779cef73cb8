import { describe, expect, it } from 'vitest';
import { addressBucket } from '../../../src/domain/client-address.js';

describe('addressBucket', () => {
  it('keeps an IPv4 address as it is, also when written as IPv4-mapped IPv6', () => {
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('10.0.0.1')).not.toBe(addressBucket('10.0.0.2'));
  });

  it('groups IPv6 by its /56 prefix, however the address is written', () => {
    const bucket = '20010db8abcd12::/56';
    for (const ip of ['2001:db8:abcd:1200::1', '2001:DB8:ABCD:12ff:ffff:ffff:ffff:ffff', '2001:0db8:abcd:1234:0:0:0:1', '2001:db8:abcd:12aa::1%eth0']) {
      expect(addressBucket(ip)).toBe(bucket);
    }
    expect(addressBucket('2001:db8:abcd:1300::1')).not.toBe(bucket);
    expect(addressBucket('2001:db8:abcd:12::1')).not.toBe(bucket);
  });

  it('reads a dotted IPv4 tail as the last two groups and keeps an unreadable address as given', () => {
    expect(addressBucket('64:ff9b::192.0.2.1')).toBe('0064ff9b000000::/56');
    expect(addressBucket('::1')).toBe('00000000000000::/56');
    expect(addressBucket('not:an::address::at all')).toBe('not:an::address::at all');
    expect(addressBucket(undefined)).toBe('unknown');
  });
});
