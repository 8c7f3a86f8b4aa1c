// Balance section (and the merchant's webhook endpoint, which comes with the same query).

import { gql } from './api.js';
import { MERCHANT_QUERY } from './documents.js';
import { byId, Messages, setText } from './dom.js';
import { formatTime } from './format.js';

export interface WebhookEndpoint {
  url: string;
  secret: string;
  enabled: boolean;
  createdAt: string;
}

export interface MerchantData {
  id: string;
  name: string;
  status: string;
  balance: {
    usdAvailable: string;
    usdPendingWithdrawal: string;
    /** Held by the operator's reserve until released (v0.3). */
    usdReserved: string;
    updatedAt: string;
  };
  webhookEndpoint: WebhookEndpoint | null;
}

export async function fetchMerchant(): Promise<MerchantData> {
  return (await gql<{ merchant: MerchantData }>(MERCHANT_QUERY)).merchant;
}

export class BalanceSection {
  private readonly messages = Messages.of('balance');
  private readonly available = byId('balance-available');
  private readonly reserved = byId('balance-reserved');
  private readonly pending = byId('balance-pending');
  private readonly updated = byId('balance-updated');
  private loading: Promise<void> | null = null;

  /** Called with the merchant each time it is (re)loaded, so other sections can use it. */
  onMerchant: (merchant: MerchantData) => void = () => undefined;

  constructor() {
    byId<HTMLButtonElement>('balance-refresh').addEventListener('click', () => void this.load());
  }

  load(): Promise<void> {
    this.loading ??= fetchMerchant()
      .then((merchant) => {
        this.show(merchant);
        this.messages.clear();
        this.onMerchant(merchant);
      })
      .catch((error: unknown) => this.messages.error(error))
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }

  reset(): void {
    setText(this.available, '—');
    setText(this.reserved, '—');
    setText(this.pending, '—');
    setText(this.updated, '—');
    this.messages.clear();
  }

  private show(merchant: MerchantData): void {
    // Decimal strings from the ledger, shown exactly as sent.
    // Below zero while the merchant owes for a reversal it is liable for.
    setText(this.available, merchant.balance.usdAvailable);
    setText(this.reserved, merchant.balance.usdReserved);
    setText(this.pending, merchant.balance.usdPendingWithdrawal);
    setText(this.updated, formatTime(merchant.balance.updatedAt) || '—');
  }
}
