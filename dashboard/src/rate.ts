// Rate section: the current NGN -> USDC quote with a live "expires in m:ss" countdown. A new
// quote is fetched when the shown one expires (and retried while the rate source is down).

import { gql, serverNow } from './api.js';
import { RATE_QUERY } from './documents.js';
import { byId, Messages, setText } from './dom.js';
import { formatCountdown } from './format.js';

interface Rate {
  rateId: string;
  rate: number;
  inverseRate: number;
  marketRate: number;
  feeBps: number;
  minDepositNgn: number;
  from: string;
  to: string;
  expiresAt: string;
}

const RETRY_MS = 5_000;

export class RateSection {
  private current: Rate | null = null;
  private ticker: ReturnType<typeof setInterval> | null = null;
  private loading: Promise<Rate | null> | null = null;
  private nextRetryAt = 0;
  private readonly messages = Messages.of('rate');
  private readonly value = byId('rate-value');
  private readonly inverse = byId('rate-inverse');
  private readonly expiry = byId('rate-expiry');
  private readonly fee = byId('rate-fee');
  private readonly min = byId('rate-min');
  private readonly id = byId('rate-id');

  constructor() {
    byId<HTMLButtonElement>('rate-refresh').addEventListener('click', () => void this.load());
  }

  start(): void {
    void this.load();
    this.ticker ??= setInterval(() => this.tick(), 1_000);
  }

  stop(): void {
    if (this.ticker !== null) clearInterval(this.ticker);
    this.ticker = null;
    this.current = null;
    this.render();
  }

  /** A quote with at least `marginSeconds` left, fetching a new one when needed (for onramps). */
  async freshRateId(marginSeconds = 5): Promise<string> {
    if (!this.current || this.secondsLeft(this.current) < marginSeconds) await this.load();
    if (!this.current || this.secondsLeft(this.current) <= 0) {
      throw new Error('No valid rate is available right now; try again shortly.');
    }
    return this.current.rateId;
  }

  load(): Promise<Rate | null> {
    this.loading ??= gql<{ rate: Rate }>(RATE_QUERY, { from: 'NGN', to: 'USDC' })
      .then(({ rate }) => {
        this.current = rate;
        this.messages.clear();
        this.render();
        return rate;
      })
      .catch((error: unknown) => {
        this.messages.error(error);
        this.nextRetryAt = serverNow() + RETRY_MS;
        return null;
      })
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }

  private secondsLeft(rate: Rate): number {
    return (Date.parse(rate.expiresAt) - serverNow()) / 1000;
  }

  private tick(): void {
    const left = this.current ? this.secondsLeft(this.current) : 0;
    this.renderExpiry();
    if (left <= 0 && !this.loading && serverNow() >= this.nextRetryAt) {
      this.nextRetryAt = serverNow() + RETRY_MS;
      void this.load();
    }
  }

  private render(): void {
    const rate = this.current;
    if (!rate) {
      setText(this.value, '—');
      setText(this.inverse, '');
      setText(this.fee, '—');
      setText(this.min, '—');
      setText(this.id, '—');
    } else {
      setText(this.value, `${rate.rate} ${rate.from} per ${rate.to}`);
      setText(this.inverse, `1 ${rate.from} = ${rate.inverseRate} ${rate.to} (fee included)`);
      setText(this.fee, `${rate.feeBps / 100}% (mid-market ${rate.marketRate})`);
      setText(this.min, `${rate.minDepositNgn} ${rate.from}`);
      setText(this.id, rate.rateId);
    }
    this.renderExpiry();
  }

  private renderExpiry(): void {
    if (!this.current) {
      setText(this.expiry, this.loading ? 'loading…' : 'no rate');
      this.expiry.classList.add('is-expired');
      return;
    }
    const left = this.secondsLeft(this.current);
    if (left > 0) {
      // Round up so the display reaches 0:00 exactly when the quote expires.
      setText(this.expiry, `expires in ${formatCountdown(Math.ceil(left))}`);
      this.expiry.classList.remove('is-expired');
    } else {
      setText(this.expiry, 'expired, refreshing…');
      this.expiry.classList.add('is-expired');
    }
  }
}
