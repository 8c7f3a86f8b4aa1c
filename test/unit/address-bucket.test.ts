import { addressBucket } from '../../src/api/address-bucket';

describe('addressBucket: what the per-address limit counts together', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['127.0.0.1', '127.0.0.1'],
    // IPv4-mapped IPv6 is the IPv4 address, in either notation.
    ['::ffff:198.51.100.77', '198.51.100.77'],
    ['::FFFF:198.51.100.77', '198.51.100.77'],
    ['::ffff:c633:644d', '198.51.100.77'],
    // IPv6: the /64, written one way however the address was.
    ['2001:db8:aa:bb:1:2:3:4', '2001:db8:aa:bb::/64'],
    ['2001:DB8:AA:BB::7', '2001:db8:aa:bb::/64'],
    ['2001:0db8:00aa:00bb:0000:0000:0000:0001', '2001:db8:aa:bb::/64'],
    ['2001:db8:aa:bc::1', '2001:db8:aa:bc::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['[2001:db8:aa:bb::9]', '2001:db8:aa:bb::/64'],
    // An IPv4 tail in another prefix (NAT64) is still IPv6: its /64.
    ['64:ff9b::198.51.100.77', '64:ff9b:0:0::/64'],
  ])('%s is counted as %s', (address, bucket) => {
    expect(addressBucket(address)).toBe(bucket);
  });

  it('every address of one /64 shares a bucket; the next /64 does not', () => {
    const buckets = new Set(
      ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2:abcd::'].map(
        addressBucket,
      ),
    );
    expect([...buckets]).toEqual(['2001:db8:1:2::/64']);
    expect(addressBucket('2001:db8:1:3::1')).not.toBe('2001:db8:1:2::/64');
  });

  it('something that is not an address is kept as it is, bounded in length', () => {
    expect(addressBucket('unknown')).toBe('unknown');
    expect(addressBucket('x'.repeat(500))).toHaveLength(64);
  });
});
