import { newWebhookSecret, webhookHeaders } from '../../src/adapters/webhook/webhook-signer';
import {
  isApiErrorBody,
  OnrampApiError,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
  type OnrampClient,
  type WebhookEvent,
} from '../../clients/typescript/src';

/**
 * The client's `verifyWebhook` against the service's own signer (the code the job runner signs
 * deliveries with), and the client's error surfacing on answers built here.
 */
const body = JSON.stringify({
  event: 'deposit.settled',
  event_id: 'evt_0123456789abcdef0123456789abcdef',
  created_at: '2026-01-01T00:00:00.000Z',
  data: { deposit_id: 'dep_1', status: 'SETTLED' },
});
// The real clock: standardwebhooks refuses timestamps more than five minutes away.
const now = () => new Date();

describe('verifyWebhook', () => {
  const secret = newWebhookSecret();

  it('returns the event of a delivery the service signed, from Node or fetch headers', () => {
    const headers = webhookHeaders([secret], 'evt_0123456789abcdef0123456789abcdef', now(), body);
    expect(verifyWebhook(body, headers, secret)).toEqual(JSON.parse(body));
    expect(verifyWebhook(Buffer.from(body), new Headers(headers), secret)).toEqual(
      JSON.parse(body),
    );
    const upperCase = Object.fromEntries(
      Object.entries(headers).map(([k, v]) => [k.toUpperCase(), [v]]),
    );
    expect(verifyWebhook(body, upperCase, secret)).toEqual(JSON.parse(body));
  });

  it('verifies with either secret during a rotation (two signatures in one header)', () => {
    const next = newWebhookSecret();
    const headers = webhookHeaders([next, secret], 'evt_x', now(), body);
    expect(verifyWebhook(body, headers, secret).event).toBe('deposit.settled');
    expect(verifyWebhook(body, headers, next).event).toBe('deposit.settled');
  });

  it('refuses a changed body, another secret, an old timestamp and missing headers', () => {
    const headers = webhookHeaders([secret], 'evt_x', now(), body);
    const refused = (payload: string, h: Record<string, string | undefined>, s = secret) =>
      expect(() => verifyWebhook(payload, h, s)).toThrow(WebhookVerificationError);
    refused(body.replace('SETTLED', 'FAILED'), headers);
    refused(body, headers, newWebhookSecret());
    refused(body, { ...headers, 'webhook-id': 'evt_other' });
    const anHourAgo = new Date(now().getTime() - 3_600_000);
    refused(body, webhookHeaders([secret], 'evt_x', anHourAgo, body));
    refused(body, { ...headers, 'webhook-signature': undefined });
  });
});

describe('unwrap', () => {
  const answer = (status: number, json: unknown) =>
    new Response(JSON.stringify(json), { status, headers: { 'x-request-id': 'req_1' } });

  it('gives the data of a success and throws OnrampApiError with the body of an error', async () => {
    expect(await unwrap({ data: { ok: 1 }, response: answer(200, { ok: 1 }) })).toEqual({ ok: 1 });
    const error = { error: { code: 'rate_expired', message: 'The rate expired' } };
    const thrown = await unwrap({ error, response: answer(422, error) }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(OnrampApiError);
    expect(thrown).toMatchObject({ status: 422, code: 'rate_expired', requestId: 'req_1' });
    expect((thrown as Error).message).toBe('rate_expired: The rate expired');
  });

  it('an answer not in the API error shape (a proxy page) still throws OnrampApiError', async () => {
    const thrown = await unwrap({ error: '<html>', response: answer(502, '<html>') }).catch(
      (e: unknown) => e,
    );
    expect(thrown).toMatchObject({ status: 502, code: 'internal_error' });
    expect(isApiErrorBody('<html>')).toBe(false);
  });
});

/** Compile-time checks (`npm run typecheck`): each @ts-expect-error must stay an error. */
export function typedCalls(client: OnrampClient, event: WebhookEvent): void {
  // @ts-expect-error a path the OpenAPI document does not have
  void client.GET('/v1/nothing-here');
  // @ts-expect-error a POST body missing its required fields
  void client.POST('/v1/onramp', { body: { type: 'EPHEMERAL' } });
  // @ts-expect-error an account number that is not a string
  void client.POST('/v1/sandbox/deposits', { body: { account_number: 1, amount_ngn: '1' } });
  if (event.event === 'deposit.settled') {
    const status:
      | 'PENDING_FX'
      | 'PENDING_WITHDRAWAL'
      | 'SETTLED'
      | 'FAILED'
      | 'FLAGGED'
      | 'REVERSED'
      | 'RETURNING'
      | 'RETURNED'
      | 'RETURN_FAILED' = event.data.status;
    // @ts-expect-error a deposit event carries a Deposit, not a Withdrawal
    void event.data.withdrawal_id;
    void status;
  }
}
