import type { OperationExample } from './operation-example';
import { PROVIDER_NOTIFICATION_EXAMPLES } from './provider-notification-examples';
import { ADDRESS_BOOK_EXAMPLES } from './address-book-examples';
/**
 * One realistic example per operation (request and response), keyed by operationId; the
 * linter checks each against its schema and the drift test fails when an operation has none.
 */
import { WEBHOOK_ENDPOINT_EXAMPLES } from './webhook-endpoint-examples';

const AT = '2026-11-25T10:00:00.000Z';
const LATER = '2026-11-25T10:25:00.000Z';
const RATE_ID = 'rate_01JDQX3K9V6Y2M8N4P5R7S1T0W';
const ONRAMP_ID = 'onr_01JDQX4B2C3D4E5F6G7H8J9K0M';
const DEPOSIT_ID = 'dep_01JDQX5N6P7Q8R9S0T1V2W3X4Y';
const MERCHANT_ID = 'mer_01JDQWZ8A7B6C5D4E3F2G1H0J9';
const WITHDRAWAL_ID = 'wd_01JDQX6Z5Y4X3W2V1T0S9R8Q7P';
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const TX_HASH = '0x9fc76417374aa880d4449a1f7f31ec597f00b1f6f3dd2d66f4c9c6c445836d8b';

export const RATE = {
  rate_id: RATE_ID,
  from: 'NGN',
  to: 'USDC',
  rate: 1587.94,
  inverse_rate: 0.00062975,
  fee_bps: 50,
  market_rate: 1580,
  min_deposit_ngn: 1500,
  created_at: AT,
  expires_at: '2026-11-25T10:30:00.000Z',
};

const ONRAMP = {
  onramp_id: ONRAMP_ID,
  type: 'THROWAWAY',
  status: 'ACTIVE',
  rate_id: RATE_ID,
  payment_reference: 'PAY7KQ2M9XD4TBW',
  virtual_account: {
    account_number: '9012345678',
    account_name: 'Onramp / Ada Obi',
    bank_name: 'Wema Bank',
    bank_code: '035',
  },
  expires_at: LATER,
  settlement: { mode: 'AUTO_WITHDRAW', asset: 'USDC', chain: 'BASE', destination_address: ADDRESS },
  user: { email: 'ada@example.com' },
  amount_ngn: '150000.00',
  payer_name: 'Adaeze Okafor',
  customer: {
    fields: ['first_name', 'last_name', 'phone', 'bvn'],
    bvn_last4: '5678',
    nin_last4: null,
  },
  created_at: AT,
  updated_at: AT,
};

export const DEPOSIT = {
  deposit_id: DEPOSIT_ID,
  onramp_id: ONRAMP_ID,
  merchant_id: MERCHANT_ID,
  payment_reference: 'PAY7KQ2M9XD4TBW',
  user_email: 'ada@example.com',
  amount_ngn: '50000.00',
  bank_reference: 'SBX-01JDQX5N6P7Q8R9S0T1V2W3X4Y',
  rate_id: RATE_ID,
  amount_asset: '31.487500',
  asset: 'USDC',
  chain: 'BASE',
  tx_hash: TX_HASH,
  status: 'SETTLED',
  failure_reason: null,
  flag_reason: null,
  payer: { account_name: 'OKAFOR ADAEZE CHIOMA', account_number_last4: '6789', bank_code: '058' },
  created_at: AT,
  settled_at: '2026-11-25T10:01:30.000Z',
  updated_at: '2026-11-25T10:01:30.000Z',
};

export const WITHDRAWAL = {
  withdrawal_id: WITHDRAWAL_ID,
  amount: '25.000000',
  asset: 'USDC',
  chain: 'BASE',
  destination_address: ADDRESS,
  status: 'PENDING',
  tx_hash: null,
  created_at: AT,
  updated_at: AT,
};

const PAGINATION = { total: 1, page: 1, per_page: 20, total_pages: 1 };

const API_KEY_ID = 'key_01JDQX5N6P7Q8R9S0T1V2W3X4Y';
export const API_KEY = {
  id: API_KEY_ID,
  name: 'Reporting',
  scopes: ['deposits:read'],
  allowed_ips: ['203.0.113.0/24'],
  key_prefix: 'rk_test_Zr4q',
  created_at: AT,
  revoked_at: null,
};

export type { OperationExample };

export const OPERATION_EXAMPLES: Record<string, OperationExample> = {
  getHealth: {
    responses: {
      200: { status: 'ok', database: 'ok', environment: 'sandbox', version: '0.1.0' },
      503: {
        status: 'unavailable',
        database: 'down',
        environment: 'sandbox',
        version: '0.1.0',
        error: { code: 'service_unavailable', message: 'The database is unreachable' },
      },
    },
  },
  getRate: { parameters: { from: 'NGN', to: 'USDC' }, responses: { 200: RATE } },
  createOnramp: {
    request: {
      type: 'THROWAWAY',
      user: { email: 'ada@example.com' },
      rate_id: RATE_ID,
      settlement: {
        mode: 'AUTO_WITHDRAW',
        asset: 'USDC',
        chain: 'BASE',
        destination_address: ADDRESS,
      },
      amount_ngn: '150000.00',
      payer_name: 'Adaeze Okafor',
      customer: {
        first_name: 'Adaeze',
        last_name: 'Okafor',
        phone: '+2348031234567',
        bvn: '22212345678',
      },
    },
    responses: { 201: { ...ONRAMP, client_secret: 'oc_Zr4q9KXcV2m8PbT7wYs3HnL6dJf1QaE5' } },
  },
  getOnramp: { parameters: { id: ONRAMP_ID }, responses: { 200: ONRAMP } },
  listOnramps: {
    parameters: { page: 1, per_page: 20 },
    responses: { 200: { onramps: [ONRAMP], pagination: PAGINATION } },
  },
  deactivateOnramp: {
    parameters: { id: ONRAMP_ID },
    responses: {
      200: {
        ...ONRAMP,
        type: 'PERMANENT',
        status: 'DEACTIVATED',
        rate_id: null,
        expires_at: null,
        settlement: { mode: 'MERCHANT_BALANCE' },
        updated_at: LATER,
      },
    },
  },
  revokeOnrampClientSecret: { parameters: { id: ONRAMP_ID }, responses: { 200: ONRAMP } },
  listDeposits: {
    parameters: {
      onramp_id: ONRAMP_ID,
      status: 'SETTLED',
      from: '2026-11-25',
      to: '2026-11-25',
      updated_since: AT,
      page: 1,
      per_page: 20,
    },
    responses: { 200: { deposits: [DEPOSIT], pagination: PAGINATION } },
  },
  getDeposit: { parameters: { id: DEPOSIT_ID }, responses: { 200: DEPOSIT } },
  createResolutionLink: {
    parameters: { id: DEPOSIT_ID },
    request: { expires_in_seconds: 86400 },
    responses: {
      201: {
        url: 'https://onramp.example.com/pay/resolve/rsl_01JDQX7A8B9C0D1E2F3G4H5J6K.1764151200.3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        expires_at: '2026-11-26T10:00:00.000Z',
      },
    },
  },
  returnDeposit: {
    parameters: { id: DEPOSIT_ID },
    responses: {
      200: {
        ...DEPOSIT,
        status: 'RETURNING',
        amount_asset: null,
        tx_hash: null,
        settled_at: null,
        updated_at: LATER,
      },
    },
  },
  getMerchantBalance: {
    responses: {
      200: {
        merchant_id: MERCHANT_ID,
        balances: {
          usd_available: '125.500000',
          usd_pending_withdrawal: '25.000000',
          usd_reserved: '12.550000',
        },
        updated_at: AT,
      },
    },
  },
  exportDepositsCsv: {
    parameters: { from: '2026-11-01', to: '2026-11-30' },
    responses: {
      200:
        'deposit_id,created_at,lagos_date,status,amount_ngn,amount_asset,asset,chain,rate_id,onramp_id,payment_reference,bank_reference,user_email,payer_account_name,payer_account_number_last4,payer_bank_code,tx_hash,flag_reason,failure_reason,settled_at,updated_at\r\n' +
        `${DEPOSIT_ID},${AT},2026-11-25,SETTLED,150000.00,94.464000,USDC,BASE,${RATE_ID},${ONRAMP_ID},order-1042,NIP-88210443,ada@example.com,OKAFOR ADAEZE CHIOMA,6789,058,${TX_HASH},,,${LATER},${LATER}\r\n`,
    },
  },
  exportLedgerCsv: {
    parameters: { from: '2026-11-01', to: '2026-11-30' },
    responses: {
      200:
        'posting_id,posted_at,lagos_date,transaction_id,kind,account,currency,direction,amount,net,deposit_id,withdrawal_id,memo\r\n' +
        `81,${AT},2026-11-25,ltx_01JDQX7A,deposit_fx,usd_available,USD,CREDIT,94.464000,94.464000,${DEPOSIT_ID},,rate ${RATE_ID}\r\n` +
        `92,${LATER},2026-11-25,ltx_01JDQX8B,withdrawal_requested,usd_available,USD,DEBIT,25.000000,-25.000000,,${WITHDRAWAL_ID},${WITHDRAWAL_ID}\r\n`,
    },
  },
  createWithdrawal: {
    request: { amount: '25.00', asset: 'USDC', chain: 'BASE', destination_address: ADDRESS },
    responses: { 202: WITHDRAWAL },
  },
  listWithdrawals: {
    parameters: { page: 1, per_page: 20 },
    responses: { 200: { withdrawals: [WITHDRAWAL], pagination: PAGINATION } },
  },
  getWithdrawal: { parameters: { id: WITHDRAWAL_ID }, responses: { 200: WITHDRAWAL } },
  simulateDeposit: {
    request: { account_number: '9012345678', amount_ngn: '50000.00' },
    responses: {
      201: {
        ...DEPOSIT,
        status: 'PENDING_FX',
        amount_asset: null,
        tx_hash: null,
        settled_at: null,
      },
      200: DEPOSIT,
    },
  },
  simulateReversal: {
    request: { bank_reference: 'SBX-01JDQX5N6P7Q8R9S0T1V2W3X4Y' },
    responses: {
      201: { ...DEPOSIT, status: 'REVERSED', updated_at: LATER },
      200: { ...DEPOSIT, status: 'REVERSED', updated_at: LATER },
    },
  },
  createApiKey: {
    request: { name: 'Reporting', scopes: ['deposits:read'], allowed_ips: ['203.0.113.0/24'] },
    responses: { 201: { ...API_KEY, secret: 'rk_test_Zr4q9KXcV2m8PbT7wYs3HnL6dJf1QaE5' } },
  },
  listApiKeys: {
    parameters: { page: 1, per_page: 20 },
    responses: { 200: { api_keys: [API_KEY], pagination: PAGINATION } },
  },
  revokeApiKey: {
    parameters: { id: API_KEY_ID },
    responses: { 200: { ...API_KEY, revoked_at: LATER } },
  },
  receiveBankNotification: {
    parameters: {
      'x-bank-timestamp': '1795600800',
      'x-bank-signature': 'v1=5f2b0c9a6d3e8f1b4a7c0d2e5f8a1b3c6d9e2f4a7b0c3d5e8f1a4b6c9d2e5f8a',
    },
    request: {
      event: 'transfer.received',
      data: {
        account_number: '9012345678',
        amount: '50000.00',
        currency: 'NGN',
        reference: 'NIP-000123456789',
        transferred_at: AT,
      },
    },
    responses: { 200: { received: true, deposit_id: DEPOSIT_ID, status: 'PENDING_FX' } },
  },
  ...PROVIDER_NOTIFICATION_EXAMPLES,
  ...WEBHOOK_ENDPOINT_EXAMPLES,
  ...ADDRESS_BOOK_EXAMPLES,
};
