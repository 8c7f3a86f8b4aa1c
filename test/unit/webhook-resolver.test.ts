import type { LookupAddress } from 'node:dns';
import {
  BlockedAddressError,
  checkedLookup,
  resolvesToPublicOnly,
  systemResolver,
  type HostResolver,
} from '../../src/adapters/webhook/webhook-sender';

const answers: Record<string, LookupAddress[]> = {
  'public.example': [
    { address: '93.184.215.14', family: 4 },
    { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
  ],
  'half.example': [
    { address: '93.184.215.14', family: 4 },
    { address: 'fd00::5', family: 6 },
  ],
};
const fake: HostResolver = async (host) => {
  if (answers[host]) return answers[host];
  throw Object.assign(new Error(`${host} not found`), { code: 'ENOTFOUND' });
};

/** Calls a LookupFunction the way net.connect does, and returns what it answered. */
function lookup(
  fn: ReturnType<typeof checkedLookup>,
  host: string,
  options: { all?: boolean; family?: number },
): Promise<{ error: Error | null; address: unknown; family?: number }> {
  return new Promise((resolve) =>
    fn(host, options, ((error: Error | null, address: unknown, family?: number) =>
      resolve({ error, address, family })) as never),
  );
}

describe('the lookup webhook sockets connect through', () => {
  it('hands the socket every checked address (all: true) or the first of a family', async () => {
    const fn = checkedLookup(fake, true);
    expect((await lookup(fn, 'public.example', { all: true })).address).toEqual(
      answers['public.example'],
    );
    expect(await lookup(fn, 'public.example', { family: 6 })).toMatchObject({
      error: null,
      address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
      family: 6,
    });
  });

  it('refuses a host when any of its addresses is not public, with the neutral error', async () => {
    const refused = await lookup(checkedLookup(fake, true), 'half.example', { all: true });
    expect(refused.error).toBeInstanceOf(BlockedAddressError);
    expect(refused.error?.message).toBe('destination address not allowed');
    // With WEBHOOK_ALLOW_PRIVATE the same answer is used as it is.
    const allowed = await lookup(checkedLookup(fake, false), 'half.example', { all: true });
    expect(allowed).toMatchObject({ error: null, address: answers['half.example'] });
  });

  it('passes resolver failures on', async () => {
    const failed = await lookup(checkedLookup(fake, true), 'nowhere.example', {});
    expect(failed.error).toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('the system resolver', () => {
  it('answers loopback for localhost names without asking DNS (RFC 6761)', async () => {
    for (const host of ['localhost', 'LOCALHOST', 'api.localhost', 'localhost.']) {
      expect((await systemResolver(host)).map((a) => a.address)).toEqual(['127.0.0.1', '::1']);
      expect(await resolvesToPublicOnly(host)).toBe(false);
    }
  });

  it('treats a name that does not resolve as not public', async () => {
    expect(await resolvesToPublicOnly('no-such-host.invalid')).toBe(false);
  }, 20_000);
});
