import type { WithdrawalAddress } from './withdrawal-address.entity';
import { withdrawalAddressStatus } from '../domain/withdrawal-addresses';

/** The WithdrawalAddress object of docs/api.md, for REST, GraphQL and webhooks alike. */
export interface WithdrawalAddressView {
  id: string;
  chain: string;
  address: string;
  label: string | null;
  /** PENDING until `active_at`, then ACTIVE; DELETED once removed (the DELETE's answer). */
  status: 'PENDING' | 'ACTIVE' | 'DELETED';
  active_at: string;
  created_at: string;
}

export function presentWithdrawalAddress(
  entry: WithdrawalAddress,
  now: Date,
): WithdrawalAddressView {
  return {
    id: entry.id,
    chain: entry.chain,
    address: entry.address,
    label: entry.label,
    status: entry.deletedAt ? 'DELETED' : withdrawalAddressStatus(entry.activeAt, now),
    active_at: entry.activeAt.toISOString(),
    created_at: entry.createdAt.toISOString(),
  };
}
