import { isPublicAddress, parseWebhookUrl } from '../../src/domain/webhook-url';
import { DomainError } from '../../src/domain/errors';

describe('webhook URLs', () => {
  it('accepts absolute http(s) URLs in the sandbox and only https in production', () => {
    expect(parseWebhookUrl('http://127.0.0.1:9000/hooks', { requireHttps: false }).port).toBe(
      '9000',
    );
    expect(parseWebhookUrl('https://hooks.example.com/x?y=1', { requireHttps: true }).href).toBe(
      'https://hooks.example.com/x?y=1',
    );
    expect(() => parseWebhookUrl('http://hooks.example.com/', { requireHttps: true })).toThrow(
      /must use https in production/,
    );
  });

  it.each([
    ['', /must not be empty/],
    ['hooks.example.com/x', /absolute URL/],
    ['ftp://hooks.example.com/', /must use https/],
    ['javascript:alert(1)', /must use https/],
    ['https://user:pw@hooks.example.com/', /credentials/],
    ['https://hooks.example.com/#frag', /fragment/],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, /at most 2048/],
  ])('refuses %s with invalid_parameter', (url, message) => {
    let error: unknown;
    try {
      parseWebhookUrl(url, { requireHttps: false });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('invalid_parameter');
    expect((error as DomainError).message).toMatch(message);
  });

  // Every special-purpose range, by its edges where an off-by-one would let one through.
  it.each([
    // IPv4
    '0.0.0.0',
    '0.255.255.255',
    '10.0.0.1',
    '10.255.255.255',
    '100.64.0.1',
    '100.127.255.255',
    '127.0.0.1',
    '127.255.0.9',
    '169.254.0.1',
    '169.254.169.254',
    '172.16.5.4',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.88.99.1',
    '192.168.1.1',
    '198.18.0.1',
    '198.19.255.255',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    // IPv6 outside global unicast
    '::',
    '::1',
    'fe80::1',
    'febf::1',
    'fc00::1',
    'fd00::1',
    'fd00:ec2::254',
    'fec0::1',
    'ff02::1',
    '100::1',
    '1::1',
    '4000::1',
    // documentation, benchmarking, ORCHID inside 2000::/3
    '2001:db8::1',
    '2001:2::1',
    '2001:10::1',
    '2001:20::1',
    '3fff::1',
    // IPv4-mapped, in every spelling
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::FFFF:10.1.2.3',
    '::ffff:a9fe:a9fe',
    '0:0:0:0:0:ffff:c0a8:101',
    // IPv4-compatible (deprecated): the whole ::/96
    '::127.0.0.1',
    '::7f00:1',
    '::8.8.8.8',
    // NAT64 with a non-public IPv4 inside, and the local-use NAT64 prefix
    '64:ff9b::7f00:1',
    '64:ff9b::169.254.169.254',
    '64:ff9b::a00:1',
    '64:ff9b:1::808:808',
    '64:ff9b:1:ffff::1',
    // 6to4 of a private or loopback IPv4 (bits 16-48)
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2002:c0a8:0101::1',
    // Teredo: client IPv4 = last 32 bits inverted (80ff:fffe -> 127.0.0.1), server bits 32-64
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001:0:4136:e378:8000:63bf:f5ff:fffe', // client 10.0.0.1
    '2001:0:7f00:1:8000:63bf:f7f7:f7f7', // server 127.0.0.1
    // bracketed (as URL.hostname gives it) and zoned
    '[::1]',
    '[::ffff:7f00:1]',
    'fe80::1%eth0',
    '2606:4700::1%1',
    // not an address at all
    'not-an-ip',
    'localhost',
    '',
    '1.2.3',
    '01.2.3.4',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '9.255.255.255',
    '11.0.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '126.255.255.255',
    '128.0.0.1',
    '169.253.255.255',
    '169.255.0.1',
    '172.15.255.255',
    '172.32.0.1',
    '192.0.1.1',
    '192.167.255.255',
    '192.169.0.1',
    '198.17.255.255',
    '198.20.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:4860:4860::8888',
    '2001:db9::1',
    '3ffe::1',
    '[2606:4700:4700::1111]',
    '::ffff:8.8.4.4',
    '::ffff:808:404',
    '64:ff9b::808:808',
    '64:ff9b::1.1.1.1',
    '2002:808:808::1',
    // Teredo: server 65.54.227.120, client 3f00:0001 inverted = 192.255.255.254 (both public)
    '2001:0:4136:e378:8000:63bf:3f00:1',
  ])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  // WHATWG URL turns other spellings of an IPv4 address into the dotted one the check sees.
  it.each([
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0xa9fea9fe/', '169.254.169.254'],
    ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
    ['http://[0:0:0:0:0:0:0:1]/', '[::1]'],
  ])('%s names %s, which is not public', (url, hostname) => {
    const parsed = parseWebhookUrl(url, { requireHttps: false });
    expect(parsed.hostname).toBe(hostname);
    expect(isPublicAddress(parsed.hostname)).toBe(false);
  });
});
