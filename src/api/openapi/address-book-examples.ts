import type { OperationExample } from './operation-example';

/** The merchant settings with the payment rules (issue 22), as answered and sent. */
export const MERCHANT_SETTINGS = {
  require_address_book: true,
  underpayment: { tolerance_ngn: '100.00', tolerance_bps: 50, action: 'flag' },
  overpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'accept' },
  payer_name_check: { enabled: true, action: 'flag' },
  allowed_origins: ['https://shop.example.com'],
  payer_resolution: { allow_settle: false },
  pending_changes: [] as Array<{ field: string; value: unknown; effective_at: string }>,
};

/** Turning the address book off waits its delay (issue 32): the answer shows it pending. */
const SETTINGS_WITH_PENDING = {
  ...MERCHANT_SETTINGS,
  pending_changes: [
    { field: 'require_address_book', value: false, effective_at: '2026-11-26T10:00:00.000Z' },
  ],
};

/** Examples of the address book and settings operations (issue 21), by operationId. */
const ENTRY_ID = 'wa_01JDQX9A1B2C3D4E5F6G7H8J9K';
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const AT = '2026-11-25T10:00:00.000Z';

export const WITHDRAWAL_ADDRESS = {
  id: ENTRY_ID,
  chain: 'BASE',
  address: ADDRESS,
  label: 'Treasury cold wallet',
  status: 'PENDING',
  active_at: '2026-11-26T10:00:00.000Z',
  created_at: AT,
};

export const ADDRESS_BOOK_EXAMPLES: Record<string, OperationExample> = {
  createWithdrawalAddress: {
    request: { chain: 'BASE', address: ADDRESS, label: 'Treasury cold wallet' },
    responses: { 201: WITHDRAWAL_ADDRESS, 200: WITHDRAWAL_ADDRESS },
  },
  listWithdrawalAddresses: {
    parameters: { page: 1, per_page: 20 },
    responses: {
      200: {
        withdrawal_addresses: [{ ...WITHDRAWAL_ADDRESS, status: 'ACTIVE' }],
        pagination: { total: 1, page: 1, per_page: 20, total_pages: 1 },
      },
    },
  },
  deleteWithdrawalAddress: {
    parameters: { id: ENTRY_ID },
    responses: { 200: { ...WITHDRAWAL_ADDRESS, status: 'DELETED' } },
  },
  getMerchantSettings: { responses: { 200: MERCHANT_SETTINGS } },
  updateMerchantSettings: {
    request: { require_address_book: false },
    responses: { 200: SETTINGS_WITH_PENDING },
  },
};
