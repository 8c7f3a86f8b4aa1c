import { HttpWebhookSender, type WebhookResponse } from '../../src/adapters/webhook/webhook-sender';
import { StallingReceiver, type Stall } from '../support/stalling-receiver';

const TIMEOUT_MS = 1500;
/** Generous: a loaded 2-core machine may be late to fire a timer or to see a close. */
const MARGIN_MS = 4000;
const ATTEMPTS = 5;

/**
 * API.md (v0.3): "A webhook attempt's 15 s timeout covers the whole exchange (connect, headers,
 * body); at most 64 KiB of the answer is read; no connection to a receiver lives longer than
 * the timeout." The production sender against real hostile receivers on loopback: every
 * attempt ends, and every connection it opened is closed (as the receiver counts them), within
 * the timeout from the attempt's start.
 */
describe('webhook attempts against stalling receivers', () => {
  const sender = new HttpWebhookSender({
    timeoutMs: TIMEOUT_MS,
    publicOnly: false,
    userAgent: 'sockets-test',
  });
  afterAll(() => sender.close());

  /** Sends ATTEMPTS attempts at once; answers what they came to, and when each side let go. */
  async function attack(receiver: StallingReceiver, body = '{}') {
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: ATTEMPTS }, async () => {
        const response = await sender.send({ url: receiver.url, headers: {}, body });
        return { response, endedAfterMs: Date.now() - started };
      }),
    );
    // Every connection closed, measured from the attempts' start (before any connection).
    const deadline = started + TIMEOUT_MS + MARGIN_MS;
    while (Date.now() < deadline && (await receiver.open()) > 0) {
      await new Promise((r) => setTimeout(r, 50));
    }
    return { started, answers, open: await receiver.open() };
  }

  const cases: Array<[Stall, Partial<WebhookResponse>]> = [
    ['silent', { statusCode: null, error: `no answer within ${TIMEOUT_MS} ms` }],
    ['never-read', { statusCode: null, error: `no answer within ${TIMEOUT_MS} ms` }],
    // The answer's status is the attempt's result; a body that never ends does not keep it open.
    ['headers-then-stall', { statusCode: 200, error: null }],
    ['drip', { statusCode: 200, error: null }],
    ['huge', { statusCode: 200, error: null }],
    ['keep-alive', { statusCode: 200, error: null }],
  ];

  it.each(cases)(
    '%s: every attempt ends and every connection is closed in time',
    async (stall, expected) => {
      const receiver = await new StallingReceiver(stall, TIMEOUT_MS).start();
      try {
        // A receiver that never reads gets a request body larger than socket buffers take in.
        const body = stall === 'never-read' ? `"${'x'.repeat(16 * 1024 * 1024)}"` : '{}';
        const { started, answers, open } = await attack(receiver, body);
        for (const { response, endedAfterMs } of answers) {
          expect(response).toMatchObject(expected);
          expect(endedAfterMs).toBeLessThanOrEqual(TIMEOUT_MS + MARGIN_MS);
        }
        expect(receiver.connections).toHaveLength(ATTEMPTS);
        expect(open).toBe(0);
        for (const connection of receiver.connections) {
          expect(connection.closedAt).not.toBeNull();
          expect(connection.closedAt! - started).toBeLessThanOrEqual(TIMEOUT_MS + MARGIN_MS);
        }
      } finally {
        await receiver.stop();
      }
    },
  );

  it('huge: stops reading at 64 KiB instead of waiting for 10 MB', async () => {
    const receiver = await new StallingReceiver('huge').start();
    try {
      const { answers } = await attack(receiver);
      // Well before the timeout: the attempt ends once 64 KiB were read, not at the deadline.
      for (const { endedAfterMs } of answers) expect(endedAfterMs).toBeLessThan(TIMEOUT_MS);
    } finally {
      await receiver.stop();
    }
  });

  it('a name whose lookup never answers ends the attempt at the deadline', async () => {
    const hanging = new HttpWebhookSender({
      timeoutMs: TIMEOUT_MS,
      publicOnly: false,
      userAgent: 'sockets-test',
      resolve: () => new Promise(() => undefined),
    });
    try {
      const started = Date.now();
      const response = await hanging.send({
        url: 'http://never.example.com/hooks',
        headers: {},
        body: '{}',
      });
      expect(response).toMatchObject({
        statusCode: null,
        error: `no answer within ${TIMEOUT_MS} ms`,
      });
      expect(Date.now() - started).toBeLessThanOrEqual(TIMEOUT_MS + MARGIN_MS);
    } finally {
      hanging.close();
    }
  });
});
