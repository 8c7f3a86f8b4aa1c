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

  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    'not-an-ip',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.4.4'])(
    '%s is public',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});
