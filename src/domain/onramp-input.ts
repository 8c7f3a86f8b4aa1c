import { type Chain, type QuoteCurrency } from './assets';
import { validateEvmAddress, parseChain } from './addresses';
import { DomainError, ErrorCode, invalidParameter, missingParameter } from './errors';
import { dec, isDecimalString } from './money';
import { parseCustomer, type CustomerInput, type OnrampCustomer } from './onramp-customer';

export type OnrampTypeName = 'THROWAWAY' | 'EPHEMERAL' | 'PERMANENT';
export type Stablecoin = 'USDC' | 'USDT';

/** The create-onramp request as both transports hand it over (REST snake_case mapped). */
export interface CreateOnrampInput {
  type?: string | null;
  user?: { email?: string | null } | null;
  rateId?: string | null;
  /** The amount the merchant expects (NGN decimal string); THROWAWAY and EPHEMERAL only. */
  amountNgn?: string | null;
  /** The name the merchant expects the transfer from. */
  payerName?: string | null;
  settlement?: {
    mode?: string | null;
    asset?: string | null;
    chain?: string | null;
    destinationAddress?: string | null;
  } | null;
  /** What a bank provider needs about the payer before it opens an account (v0.3). */
  customer?: CustomerInput | null;
}

export type Settlement =
  | { mode: 'MERCHANT_BALANCE' }
  | { mode: 'AUTO_WITHDRAW'; asset: Stablecoin; chain: Chain; destinationAddress: string };

export interface ValidOnrampRequest {
  type: OnrampTypeName;
  email: string;
  rateId: string | null;
  settlement: Settlement;
  amountNgn: string | null;
  payerName: string | null;
  customer: OnrampCustomer | null;
}

const TYPES: readonly string[] = ['THROWAWAY', 'EPHEMERAL', 'PERMANENT'];
const MODES: readonly string[] = ['AUTO_WITHDRAW', 'MERCHANT_BALANCE'];
const STABLECOINS: readonly string[] = ['USDC', 'USDT'];
// Pragmatic: one @, no spaces, a dot in the domain; RFC 5321 length limit.
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;

const present = <T>(value: T | null | undefined): value is T =>
  value !== undefined && value !== null;

function parseSettlement(raw: CreateOnrampInput['settlement']): Settlement {
  if (!present(raw)) throw missingParameter('settlement');
  if (!present(raw.mode)) throw missingParameter('settlement.mode');
  if (!MODES.includes(raw.mode)) {
    throw invalidParameter('settlement.mode', 'must be AUTO_WITHDRAW or MERCHANT_BALANCE');
  }
  if (raw.mode === 'MERCHANT_BALANCE') {
    for (const [field, value] of [
      ['asset', raw.asset],
      ['chain', raw.chain],
      ['destination_address', raw.destinationAddress],
    ] as const) {
      if (present(value)) {
        throw invalidParameter(`settlement.${field}`, 'is not allowed with MERCHANT_BALANCE');
      }
    }
    return { mode: 'MERCHANT_BALANCE' };
  }
  if (!present(raw.asset)) throw missingParameter('settlement.asset');
  if (!STABLECOINS.includes(raw.asset))
    throw invalidParameter('settlement.asset', 'must be USDC or USDT');
  if (!present(raw.chain)) throw missingParameter('settlement.chain');
  const chain = parseChain(raw.chain);
  if (!chain)
    throw invalidParameter('settlement.chain', 'must be BASE, ETHEREUM (or ETH) or POLYGON');
  if (!present(raw.destinationAddress) || raw.destinationAddress === '') {
    throw missingParameter('settlement.destination_address');
  }
  return {
    mode: 'AUTO_WITHDRAW',
    asset: raw.asset as Stablecoin,
    chain,
    destinationAddress: validateEvmAddress(raw.destinationAddress, chain),
  };
}

/** Every rule of a create-onramp request that needs no database. */
export function parseCreateOnramp(input: CreateOnrampInput): ValidOnrampRequest {
  if (!present(input.type)) throw missingParameter('type');
  if (!TYPES.includes(input.type))
    throw invalidParameter('type', 'must be THROWAWAY, EPHEMERAL or PERMANENT');
  if (!present(input.user)) throw missingParameter('user');
  if (!present(input.user.email) || input.user.email === '') throw missingParameter('user.email');
  const email = input.user.email.trim();
  if (email.length > 254 || !EMAIL.test(email))
    throw invalidParameter('user.email', 'is not an e-mail address');
  const type = input.type as OnrampTypeName;
  let rateId: string | null = null;
  if (type === 'PERMANENT') {
    if (present(input.rateId)) {
      throw invalidParameter(
        'rate_id',
        'PERMANENT onramps use the rate current at settlement; omit rate_id',
      );
    }
  } else {
    if (!present(input.rateId) || input.rateId === '') throw missingParameter('rate_id');
    rateId = input.rateId;
  }
  return {
    type,
    email,
    rateId,
    settlement: parseSettlement(input.settlement),
    amountNgn: parseExpectedAmount(type, input.amountNgn),
    payerName: parsePayerName(input.payerName),
    customer: parseCustomer(input.customer),
  };
}

/** 100 billion NGN, the ceiling of a transfer. */
const MAX_EXPECTED_NGN = dec('100000000000');
const PAYER_NAME_MAX = 200;

function parseExpectedAmount(type: OnrampTypeName, raw: string | null | undefined): string | null {
  if (!present(raw)) return null;
  if (type === 'PERMANENT') {
    throw invalidParameter('amount_ngn', 'PERMANENT onramps take any amount; omit amount_ngn');
  }
  if (typeof raw !== 'string' || !isDecimalString(raw, 2) || dec(raw).lte(0)) {
    throw invalidParameter('amount_ngn', 'must be a positive decimal string with at most 2 places');
  }
  if (dec(raw).gt(MAX_EXPECTED_NGN)) {
    throw invalidParameter('amount_ngn', `must not exceed ${MAX_EXPECTED_NGN.toFixed()}`);
  }
  return dec(raw).toFixed(2);
}

function parsePayerName(raw: string | null | undefined): string | null {
  if (!present(raw)) return null;
  const name = raw.trim();
  if (name === '' || name.length > PAYER_NAME_MAX || !/\p{L}/u.test(name)) {
    throw invalidParameter('payer_name', `must name a person (1-${PAYER_NAME_MAX} characters)`);
  }
  return name;
}

/** AUTO_WITHDRAW pays out the rate's asset; a USD rate settles into either stablecoin. */
export function assertRateFitsSettlement(rateTo: QuoteCurrency, settlement: Settlement): void {
  if (settlement.mode === 'AUTO_WITHDRAW' && rateTo !== 'USD' && rateTo !== settlement.asset) {
    throw new DomainError(
      ErrorCode.InvalidParameter,
      `Invalid parameter settlement.asset: the rate quotes ${rateTo}, so settlement.asset must be ${rateTo}`,
    );
  }
}
