/** Every field of the REST Deposit object (spec table + API.md), and nothing else. */
export const DEPOSIT_KEYS = [
  'amount_asset',
  'amount_ngn',
  'asset',
  'bank_reference',
  'chain',
  'created_at',
  'deposit_id',
  'failure_reason',
  'flag_reason',
  'merchant_id',
  'onramp_id',
  'payer',
  'payment_reference',
  'rate_id',
  'settled_at',
  'status',
  'tx_hash',
  'updated_at',
  'user_email',
];

/** Every field of the REST Withdrawal object (API.md), and nothing else. */
export const WITHDRAWAL_KEYS = [
  'amount',
  'asset',
  'chain',
  'created_at',
  'destination_address',
  'status',
  'tx_hash',
  'updated_at',
  'withdrawal_id',
];
