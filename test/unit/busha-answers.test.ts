import {
  BushaRefusal,
  classifyRefusal,
  fillOf,
  quoteAnswer,
  refusalOf,
  transferAnswer,
  transferListAnswer,
  transferState,
  type BushaTransfer,
} from '../../src/adapters/fx/busha/busha-answers';
import { FxTemporaryFailure, type FxOrder } from '../../src/adapters/fx/fx-venue';
import { ConfigError, loadConfig } from '../../src/config';
import { fxVenueIsSimulated } from '../../src/config-fx';
import { dec } from '../../src/domain/money';

const refusal = (status: number, message: string, name = 'bad_request') =>
  new BushaRefusal(status, name, message);

describe('Busha answers: what a refusal means for the order', () => {
  it.each([
    ['quote', 503, 'Server error', 'temporary'],
    ['quote', 500, 'Server error', 'temporary'],
    ['quote', 429, 'Too many requests', 'temporary'],
    ['quote', 401, 'Invalid or missing authentication', 'temporary'],
    ['quote', 403, 'account restricted', 'permanent'],
    ['quote', 400, 'source_amount is below the minimum of 100', 'permanent'],
    ['quote', 400, 'NGN to XYZ is not supported', 'permanent'],
    ['quote', 400, 'Insufficient liquidity for USDTNGN', 'temporary'],
    ['quote', 400, 'quote has expired', 'permanent'],
    ['transfer', 500, 'Server error', 'unknown'],
    ['transfer', 502, 'Bad gateway', 'unknown'],
    ['transfer', 503, 'Server error', 'temporary'],
    ['transfer', 429, 'Too many requests', 'temporary'],
    ['transfer', 400, 'quote has expired', 'quote_expired'],
    ['transfer', 404, 'quote not found', 'quote_expired'],
    ['transfer', 400, 'quote has already been used', 'quote_used'],
    ['transfer', 400, 'insufficient balance', 'temporary'],
    ['transfer', 400, 'pair is under maintenance', 'temporary'],
    ['transfer', 422, 'amount exceeds the maximum', 'permanent'],
  ] as const)('%s %i "%s": %s', (step, status, message, expected) => {
    expect(classifyRefusal(refusal(status, message), step)).toBe(expected);
  });

  it('reads the documented envelopes, and names a refusal whose body is none of them', () => {
    const documented = refusalOf(400, {
      status: 'error',
      message: 'Insufficient scope',
      error: { name: 'insufficient_scope', message: 'this endpoint requires balances:read' },
    });
    expect(documented).toMatchObject({ status: 400, code: 'insufficient_scope' });
    expect(documented.message).toContain('this endpoint requires balances:read');
    const schema = refusalOf(400, {
      error: { name: 'bad_request', message: 'Invalid input data' },
      schema: { reason: 'r', fix: 'f' },
    });
    expect(schema).toMatchObject({ code: 'bad_request' });
    const html = refusalOf(502, undefined);
    expect(html).toMatchObject({ status: 502, code: 'http_502' });
    expect(html.message).toContain('no message');
  });

  it.each([
    ['funds_converted', 'converted'],
    ['completed', 'converted'],
    ['cancelled', 'cancelled'],
    ['failed', 'cancelled'],
    ['funds_refunded', 'cancelled'],
    ['pending', 'in_progress'],
    ['processing', 'in_progress'],
    ['funds_received', 'in_progress'],
    ['a_status_busha_adds_later', 'in_progress'],
  ])('transfer status %s is %s', (status, state) => {
    expect(transferState(status)).toBe(state);
  });
});

describe('Busha answers: the documented samples parse', () => {
  // docs.busha.io/examples/fiat-to-crypto, "Convert 50,000 NGN to USDT" (balance to balance).
  const quote = {
    status: 'success',
    message: 'Created quote successfully',
    data: {
      id: 'QUO_DnxR9RLTXIuy',
      profile_id: 'BUS_9rDAqqREdmMQcQj3zsRlL',
      source_currency: 'NGN',
      target_currency: 'USDT',
      source_amount: '50000',
      target_amount: '33.50779726',
      rate: { product: 'USDTNGN', rate: '1492.19', side: 'buy', type: 'FIXED' },
      fees: [],
      pay_in: { type: 'balance' },
      pay_out: { type: 'balance' },
      reference: 'QUO_DnxR9RLTXIuy',
      status: 'pending',
      expires_at: '2025-10-29T13:52:57.407162722Z',
      created_at: '2025-10-29T13:22:57.407139812Z',
      updated_at: '2025-10-29T13:22:57.407139812Z',
    },
  };
  const transfer = {
    id: 'TRF_UDmJwU2RAzF7',
    profile_id: 'BUS_9rDAqqREdmMQcQj3zsRlL',
    quote_id: 'QUO_DnxR9RLTXIuy',
    description: 'Bought USDT',
    source_currency: 'NGN',
    target_currency: 'USDT',
    source_amount: '50000',
    target_amount: '33.50779726',
    trade: 'buy',
    status: 'funds_converted',
    created_at: '2024-05-16T13:06:31.409336+01:00',
  };

  it('reads a quote, a transfer and a page of transfers in the shapes of the examples', () => {
    expect(quoteAnswer.parse(quote).data).toMatchObject({ id: 'QUO_DnxR9RLTXIuy' });
    expect(transferAnswer.parse({ status: 'success', data: transfer }).data.status).toBe(
      'funds_converted',
    );
    const page = transferListAnswer.parse({
      status: 'success',
      message: 'message for success',
      pagination: {
        next_cursor: 'MjAyNC0xMC0xNVQxMTowNTo1My45NTkxNDErMDE6MDA=',
        current_entries_size: 20,
      },
      data: [transfer],
    });
    expect(page.data).toHaveLength(1);
  });

  it('refuses an answer whose amount is not a decimal string (no floats reach a fill)', () => {
    const float = { ...quote, data: { ...quote.data, target_amount: 33.50779726 } };
    expect(quoteAnswer.safeParse(float).success).toBe(false);
    expect(
      transferAnswer.safeParse({ data: { ...transfer, target_amount: '3.3e1' } }).success,
    ).toBe(false);
  });
});

describe('Busha answers: a converted transfer as the order fill', () => {
  const order: FxOrder = {
    clientOrderId: 'dep_1',
    merchantId: 'mer_1',
    amountNgn: dec('50000.25'),
    marketRateNgnPerUsd: dec('1490.2'),
  };
  const transfer: BushaTransfer = {
    id: 'TRF_JSaOYnl7Sla0',
    quote_id: 'QUO_gCcLjJ0P0uEc',
    status: 'funds_converted',
    source_currency: 'NGN',
    target_currency: 'USDT',
    source_amount: '50000.25',
    target_amount: '33.48543819',
  };

  it('fills with the USD bought rounded down to 6 decimals, exactly, and the transfer id', () => {
    const fill = fillOf(transfer, order, 'USDT');
    expect(fill.usdBought.toFixed()).toBe('33.485438');
    expect(fill.venueReference).toBe('TRF_JSaOYnl7Sla0');
    expect(
      fillOf({ ...transfer, target_amount: '33.4854399999' }, order, 'USDT').usdBought.toFixed(),
    ).toBe('33.485439');
  });

  it.each([
    ['another amount', { source_amount: '50000.24' }, 'USDT'],
    ['another source currency', { source_currency: 'KES' }, 'USDT'],
    ['another target currency', {}, 'USDC'],
  ])('refuses a transfer that is not the order (%s): FLAGGED, not settled', (_, change, target) => {
    expect(() => fillOf({ ...transfer, ...change }, order, target)).toThrow(FxTemporaryFailure);
  });
});

describe('FX venue settings', () => {
  it('defaults to the sandbox venue, which is a simulation', () => {
    const config = loadConfig({});
    expect(config.FX_VENUE).toBe('sandbox');
    expect(fxVenueIsSimulated(config)).toBe(true);
  });

  it('requires BUSHA_SECRET_KEY when FX_VENUE=busha, naming it', () => {
    let error: unknown;
    try {
      loadConfig({ FX_VENUE: 'busha' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'BUSHA_SECRET_KEY: is required when FX_VENUE is busha',
    ]);
  });

  it('takes Busha with its key, the live base URL by default, and is not a simulation', () => {
    const config = loadConfig({ FX_VENUE: 'busha', BUSHA_SECRET_KEY: 'c2VjcmV0OmtleQ==abcdef' });
    expect(config.BUSHA_BASE_URL).toBe('https://api.busha.co');
    expect(config.BUSHA_TARGET_CURRENCY).toBe('USDT');
    expect(config.BUSHA_TIMEOUT_MS).toBe(15_000);
    expect(fxVenueIsSimulated(config)).toBe(false);
  });

  it.each([
    ['FX_VENUE', 'binance'],
    ['BUSHA_BASE_URL', 'not a url'],
    ['BUSHA_TARGET_CURRENCY', 'EUR'],
    ['BUSHA_PROFILE_ID', 'BUS id with spaces'],
  ])('refuses %s=%p', (name, value) => {
    expect(() =>
      loadConfig({ FX_VENUE: 'busha', BUSHA_SECRET_KEY: 'k'.repeat(20), [name]: value }),
    ).toThrow(name);
  });
});
