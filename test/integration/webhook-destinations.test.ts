import { createServer, type Server } from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { DomainError } from '../../src/domain/errors';
import {
  HttpWebhookSender,
  resolvesToPublicOnly,
  systemResolver,
  type HostResolver,
} from '../../src/adapters/webhook/webhook-sender';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { WebhookReceiver } from '../support/webhook-receiver';

const PUBLIC_V4 = '93.184.215.14';

/** A DNS stand-in: names map to the answers a hostile (or rebinding) DNS server could give. */
function fakeDns(answers: Map<string, string[]>): HostResolver {
  return async (hostname) => {
    if (hostname === 'localhost') return systemResolver(hostname);
    const addresses = answers.get(hostname);
    if (!addresses) throw Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' });
    return addresses.map((address): LookupAddress => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));
  };
}

describe('webhook destinations without WEBHOOK_ALLOW_PRIVATE (sandbox)', () => {
  let databaseUrl: string;
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  let receiver: WebhookReceiver;
  const dns = new Map<string, string[]>([
    ['hooks.example.com', [PUBLIC_V4]],
    ['internal.example.com', ['10.0.0.5']],
    ['metadata.example.com', ['169.254.169.254']],
    ['mixed.example.com', [PUBLIC_V4, '127.0.0.1']],
    ['mapped.example.com', ['::ffff:127.0.0.1']],
    ['nat64.example.com', ['64:ff9b::a9fe:a9fe']],
  ]);
  const resolve = fakeDns(dns);
  let sender: HttpWebhookSender;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    orm = await openTestOrm(databaseUrl);
    clock = new ManualClock(new Date());
    // The production sender, with the name lookup it connects through replaced by `dns`.
    sender = new HttpWebhookSender({ timeoutMs: 2000, publicOnly: true, userAgent: 't', resolve });
    const config = loadConfig({ ONRAMP_ENV: 'sandbox', WEBHOOK_ALLOW_PRIVATE: '' });
    expect(config.WEBHOOK_ALLOW_PRIVATE).toBe(false);
    services = createServices(config, clock, {
      resolvesToPublicOnly: (host) => resolvesToPublicOnly(host, resolve),
      webhookSender: sender,
    });
    kit = depositKit(orm, services, clock);
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    sender?.close();
    await receiver?.stop();
    await orm?.close();
  });

  const setUrl = (merchantId: string, url: string) =>
    services.webhookEndpoints.set(orm.em.fork(), merchantId, url);

  it('refuses URLs that are, or resolve to, non-public addresses, in any spelling', async () => {
    const merchant = await kit.merchant();
    const dbPort = new URL(databaseUrl).port;
    const hostile = [
      'http://169.254.169.254/latest/meta-data/',
      `http://127.0.0.1:${dbPort}/`,
      `http://localhost:${dbPort}/`,
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[::127.0.0.1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://[64:ff9b:1::808:808]/',
      'http://[2002:7f00:1::1]/',
      'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
      'http://[fd00:ec2::254]/',
      'http://[fe80::1]/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://10.1.2.3/',
      'http://100.64.0.1/',
      'http://192.168.0.1/',
      'http://0.0.0.0/',
      'http://255.255.255.255/',
      'http://224.0.0.1/',
      'http://internal.example.com/',
      'http://metadata.example.com/',
      'http://mixed.example.com/',
      'http://mapped.example.com/',
      'http://nat64.example.com/',
      'http://unknown.example.com/',
    ];
    for (const url of hostile) {
      const error = await setUrl(merchant, url).catch((e: unknown) => e);
      expect({ url, error }).toEqual({ url, error: expect.any(DomainError) });
      expect({ url, code: (error as DomainError).code }).toEqual({
        url,
        code: 'invalid_parameter',
      });
    }
    expect(await services.webhookEndpoints.get(orm.em.fork(), merchant)).toBeNull();
  });

  it('accepts public destinations (http is fine in the sandbox)', async () => {
    const merchant = await kit.merchant();
    for (const url of [
      'http://hooks.example.com/x',
      'https://8.8.8.8/x',
      'https://[2606:4700:4700::1111]/x',
      'https://[64:ff9b::808:808]/x',
    ]) {
      expect((await setUrl(merchant, url)).url).toBe(url);
    }
  });

  it('refuses at delivery a host whose DNS answer changed to a private address, saying only that', async () => {
    const merchant = await kit.merchant();
    const url = receiver.url.replace('127.0.0.1', 'rebind.example.com');
    dns.set('rebind.example.com', [PUBLIC_V4]);
    await setUrl(merchant, url);
    // The name now points at the receiver on loopback (a rebinding DNS server).
    dns.set('rebind.example.com', ['127.0.0.1']);
    const onramp = await kit.onramp(merchant);
    await kit.transfer(onramp.accountNumber, '15000');
    const outcomes = await services.webhookDeliveries.deliverDue(orm.em.fork(), {
      limit: 10,
      perEndpoint: 10,
      skipEndpoints: [],
    });
    expect(outcomes).toEqual([
      {
        kind: 'retry',
        at: expect.any(Date),
        statusCode: null,
        error: 'destination address not allowed',
      },
    ]);
    expect(receiver.received).toHaveLength(0);
    const { deliveries } = await services.webhookLog.listAfter(
      orm.em.fork(),
      merchant,
      null,
      null,
      10,
    );
    expect(deliveries[0]).toMatchObject({
      lastStatusCode: null,
      lastError: 'destination address not allowed',
    });
    expect(deliveries[0].attempts[0]).toMatchObject({
      statusCode: null,
      error: 'destination address not allowed',
    });
  });

  it('connects through the injected lookup: the same name reaches the receiver when allowed', async () => {
    const allowing = new HttpWebhookSender({
      timeoutMs: 2000,
      publicOnly: false,
      userAgent: 't',
      resolve,
    });
    try {
      dns.set('rebind.example.com', ['127.0.0.1']);
      const url = receiver.url.replace('127.0.0.1', 'rebind.example.com');
      expect(await sender.send({ url, headers: {}, body: '{}' })).toMatchObject({
        statusCode: null,
        error: 'destination address not allowed',
      });
      expect(receiver.received).toHaveLength(0);
      expect(await allowing.send({ url, headers: {}, body: '{}' })).toMatchObject({
        statusCode: 200,
        error: null,
      });
      expect(receiver.received).toHaveLength(1);
    } finally {
      allowing.close();
      receiver.received.length = 0;
    }
  });

  it('does not follow redirects: a 3xx is the answer, the Location is never visited', async () => {
    const target = await new WebhookReceiver().start();
    const redirecting: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(307, { location: target.url }).end('moved'));
    });
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    const allowing = new HttpWebhookSender({ timeoutMs: 2000, publicOnly: false, userAgent: 't' });
    try {
      const port = (redirecting.address() as AddressInfo).port;
      const answer = await allowing.send({
        url: `http://127.0.0.1:${port}/hooks`,
        headers: {},
        body: '{}',
      });
      expect(answer).toMatchObject({ statusCode: 307, error: null });
      expect(target.received).toHaveLength(0);
    } finally {
      allowing.close();
      redirecting.close();
      await target.stop();
    }
  });
});
