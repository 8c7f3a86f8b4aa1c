import {
  decideArrival,
  decidePaymentRules,
  type ArrivalFacts,
} from '../../src/domain/deposit-rules';
import { dec } from '../../src/domain/money';
import {
  amountVerdict,
  DEFAULT_AMOUNT_RULE,
  DEFAULT_NAME_CHECK,
  parseAmountRule,
  parseNameCheck,
  paymentRulesOf,
  toleranceNgn,
  type PaymentRules,
} from '../../src/domain/payment-rules';

const rules = (over: Partial<PaymentRules> = {}): PaymentRules => ({
  underpayment: { tolerance_ngn: '100.00', tolerance_bps: 100, action: 'flag' },
  overpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'flag' },
  payer_name_check: { enabled: false, action: 'flag' },
  ...over,
});

describe('toleranceNgn: the larger of the fixed amount and the share', () => {
  it('takes the fixed amount when the share is smaller, the share when larger', () => {
    const rule = { tolerance_ngn: '100.00', tolerance_bps: 100, action: 'flag' as const };
    expect(toleranceNgn(dec('5000'), rule).toFixed()).toBe('100'); // share 50
    expect(toleranceNgn(dec('10000'), rule).toFixed()).toBe('100'); // share 100: equal
    expect(toleranceNgn(dec('25000.50'), rule).toFixed()).toBe('250.005'); // unrounded share
  });
});

describe('amountVerdict at the edges (exact decimals)', () => {
  const r = rules();
  it('underpayment: within at exactly the tolerance, underpaid one kobo beyond', () => {
    expect(amountVerdict(dec('4900.00'), dec('5000.00'), r)).toBe('exact_or_within');
    expect(amountVerdict(dec('4899.99'), dec('5000.00'), r)).toBe('underpaid');
    // 1 % of 25,000.50 is 250.005: 24,750.50 is 250.00 short (within), 24,750.49 is not.
    expect(amountVerdict(dec('24750.50'), dec('25000.50'), r)).toBe('exact_or_within');
    expect(amountVerdict(dec('24750.49'), dec('25000.50'), r)).toBe('underpaid');
  });
  it('overpayment with zero tolerance: one kobo over is overpaid, exact is not', () => {
    expect(amountVerdict(dec('5000.00'), dec('5000.00'), r)).toBe('exact_or_within');
    expect(amountVerdict(dec('5000.01'), dec('5000.00'), r)).toBe('overpaid');
  });
  it('never uses floating point: 0.1 + 0.2 style amounts stay exact', () => {
    const tight = rules({
      underpayment: { tolerance_ngn: '0.30', tolerance_bps: 0, action: 'flag' },
    });
    expect(amountVerdict(dec('0.30'), dec('0.60'), tight)).toBe('exact_or_within');
    expect(amountVerdict(dec('0.29'), dec('0.60'), tight)).toBe('underpaid');
  });
});

describe('parsing and defaults', () => {
  it('a merchant who never set a rule accepts every amount and checks no name', () => {
    expect(paymentRulesOf(null)).toEqual({
      underpayment: DEFAULT_AMOUNT_RULE,
      overpayment: DEFAULT_AMOUNT_RULE,
      payer_name_check: DEFAULT_NAME_CHECK,
    });
    expect(DEFAULT_AMOUNT_RULE.action).toBe('accept');
    expect(DEFAULT_NAME_CHECK.enabled).toBe(false);
  });
  it('merges a partial patch and refuses bad values', () => {
    expect(parseAmountRule('underpayment', { action: 'flag' }, DEFAULT_AMOUNT_RULE)).toEqual({
      ...DEFAULT_AMOUNT_RULE,
      action: 'flag',
    });
    expect(parseAmountRule('u', { tolerance_ngn: '12.5' }, DEFAULT_AMOUNT_RULE).tolerance_ngn).toBe(
      '12.50',
    );
    for (const bad of [
      { tolerance_ngn: '-1' },
      { tolerance_ngn: '1.001' },
      { tolerance_ngn: 5 },
      { tolerance_bps: 1.5 },
      { tolerance_bps: 10001 },
      { action: 'ignore' },
      { extra: 1 },
    ]) {
      expect(() => parseAmountRule('underpayment', bad, DEFAULT_AMOUNT_RULE)).toThrow(
        /Invalid parameter underpayment/,
      );
    }
    expect(() => parseNameCheck({ action: 'accept' }, DEFAULT_NAME_CHECK)).toThrow(
      /payer_name_check/,
    );
    expect(parseNameCheck({ enabled: true }, DEFAULT_NAME_CHECK)).toEqual({
      enabled: true,
      action: 'flag',
    });
  });
});

describe('decidePaymentRules in decideArrival', () => {
  const limits = {
    perDepositUsd: dec(10000),
    merchantDailyUsd: dec(1e6),
    systemDailyUsd: dec(1e7),
  };
  const facts = (over: Partial<ArrivalFacts> = {}): ArrivalFacts => ({
    onrampType: 'THROWAWAY',
    onrampStatus: 'ACTIVE',
    priorDeposits: 0,
    rateExpired: false,
    merchantFrozen: false,
    amountNgn: dec('5000.00'),
    minDepositNgn: dec('100'),
    amountUsd: dec('3.2'),
    expectedNgn: dec('5000.00'),
    expectedPayerName: 'Adaeze Okafor',
    payerName: 'OKAFOR ADAEZE',
    rules: rules(),
    ...over,
  });
  it('flags Underpaid, Overpaid and Payer name mismatch with the exact reasons', () => {
    expect(decideArrival(facts({ amountNgn: dec('4000') }), limits)).toEqual({
      status: 'FLAGGED',
      flagReason: 'Underpaid',
    });
    expect(decideArrival(facts({ amountNgn: dec('5000.01') }), limits)).toEqual({
      status: 'FLAGGED',
      flagReason: 'Overpaid',
    });
    const check = rules({ payer_name_check: { enabled: true, action: 'flag' } });
    expect(decideArrival(facts({ rules: check, payerName: 'NGOZI EZE' }), limits)).toEqual({
      status: 'FLAGGED',
      flagReason: 'Payer name mismatch',
    });
    expect(decideArrival(facts({ rules: check }), limits)).toEqual({ status: 'PENDING_FX' });
  });
  it('accept lets every amount through; no expected amount checks nothing', () => {
    const accept = paymentRulesOf(null);
    expect(
      decideArrival(facts({ rules: accept, amountNgn: dec('1'), minDepositNgn: dec(0) }), limits)
        .status,
    ).toBe('PENDING_FX');
    expect(decidePaymentRules(facts({ expectedNgn: null, amountNgn: dec('1') })).status).toBe(
      'PENDING_FX',
    );
  });
  it('the earlier rules come first; return asks for the money back', () => {
    expect(
      decideArrival(facts({ onrampStatus: 'EXPIRED', amountNgn: dec('4000') }), limits),
    ).toEqual({
      status: 'FLAGGED',
      flagReason: 'Deposit received after onramp expiry',
    });
    const ret = rules({
      underpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'return' },
    });
    expect(decidePaymentRules(facts({ rules: ret, amountNgn: dec('4999.99') }))).toEqual({
      status: 'FLAGGED',
      flagReason: 'Underpaid',
      returnToPayer: true,
    });
  });
  it('an unknown payer name is not a mismatch', () => {
    const check = rules({ payer_name_check: { enabled: true, action: 'flag' } });
    expect(decidePaymentRules(facts({ rules: check, payerName: null })).status).toBe('PENDING_FX');
  });
});
