import type { IncomingMessage } from 'node:http';
import { clientAddressResolver } from '../../src/api/client-address';
import { loadConfig } from '../../src/config';

/** A request from `peer` carrying `forwarded` as its X-Forwarded-For. */
const from = (peer: string, forwarded?: string) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
  }) as unknown as IncomingMessage;

const addressUnder = (trustProxy: string) =>
  clientAddressResolver(loadConfig({ TRUST_PROXY: trustProxy }).TRUST_PROXY);

describe('the client address under TRUST_PROXY', () => {
  it('false: the peer, whatever the header says', () => {
    expect(addressUnder('false')(from('198.51.100.1', '203.0.113.7'))).toBe('198.51.100.1');
  });

  it('true: one proxy, the address it appended (the last), never the leftmost', () => {
    const client = addressUnder('true');
    expect(client(from('10.0.0.2', '203.0.113.7, 198.51.100.9'))).toBe('198.51.100.9');
    expect(client(from('10.0.0.2', '198.51.100.9'))).toBe('198.51.100.9');
    // No header: nothing was appended, the peer it is.
    expect(client(from('10.0.0.2'))).toBe('10.0.0.2');
  });

  it('a hop count: that many proxies from the socket', () => {
    const client = addressUnder('2');
    expect(client(from('10.0.0.2', '203.0.113.7, 198.51.100.9, 10.0.0.3'))).toBe('198.51.100.9');
  });

  it('a list: the nearest address that is not one of them', () => {
    const client = addressUnder('10.0.0.0/8');
    expect(client(from('10.0.0.2', '203.0.113.7, 198.51.100.9, 10.0.0.3'))).toBe('198.51.100.9');
    // A peer outside the list is the client, its header ignored.
    expect(client(from('198.51.100.20', '203.0.113.7'))).toBe('198.51.100.20');
  });
});
