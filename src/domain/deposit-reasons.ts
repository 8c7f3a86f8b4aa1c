import type { Dec } from './money';

/** flag_reason and failure_reason texts: the spec's where it gives one, docs/api.md's, then ours. */
export const REASON = {
  afterOnrampExpiry: 'Deposit received after onramp expiry',
  afterRateExpiry: 'Deposit received after rate expiry',
  afterDeactivation: 'Deposit received after onramp deactivation',
  secondThrowawayTransfer: 'Second transfer to a throwaway onramp',
  merchantFrozen: 'Merchant account frozen',
  belowMinimum: 'Below minimum deposit',
  noRate: 'No rate available to convert the deposit',
  fxTemporary: 'FX execution failed temporarily',
  fxPermanent: 'FX execution failed',
  bankReversed: 'Bank reversed the transfer',
  bankReversalDuringSettlement: 'Bank reversal during settlement',
  reversalDuringReturn: 'Reversal during return',
  riskRejected: 'Rejected by risk review',
  /** The onramp's destination is on the sanctions list in force (API.md, v0.3). */
  sanctionsScreening: 'Sanctions screening',
  chainOutage: 'Chain outage outlasted the maximum wait',
  payoutFailed: 'On-chain transfer failed',
  returnedToSender: 'Returned to sender after review',
  underpaid: 'Underpaid',
  overpaid: 'Overpaid',
  payerNameMismatch: 'Payer name mismatch',
} as const;

function usd(amount: Dec): string {
  const [whole, fraction] = amount.toFixed().split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction ? `${grouped}.${fraction}` : grouped;
}

export const limitReason = {
  perDeposit: (limit: Dec) => `Exceeds the per-deposit limit of ${usd(limit)} USD`,
  merchantDaily: (limit: Dec) => `Exceeds the merchant daily limit of ${usd(limit)} USD`,
  systemDaily: (limit: Dec) => `Exceeds the system daily limit of ${usd(limit)} USD`,
};
