import type { MikroORM } from '@mikro-orm/postgresql';
import type { ManualClock } from '../../src/clock';
import type { Services } from '../../src/container';
import { Deposit } from '../../src/deposits/deposit.entity';
import type { DepositView } from '../../src/deposits/deposit-view';
import { dec } from '../../src/domain/money';

/** A fixed market: 1,500 NGN per USD and USDC, 1,501 per USDT. */
export const fixedMarket = {
  name: 'fixed',
  marketRates: async () => ({ USD: dec(1500), USDC: dec(1500), USDT: dec(1501) }),
};

/** Service-level helpers for integration tests on a real database with a manual clock. */
export function depositKit(orm: MikroORM, services: Services, clock: ManualClock) {
  let serial = 0;
  const kit = {
    async merchant(name = 'Deposit Co'): Promise<string> {
      return (await services.merchants.create(orm.em.fork(), name)).id;
    },
    /** Publishes a fresh set of rates (moving the clock past the recency guard) and returns USDC's. */
    async rate(to: 'USDC' | 'USDT' | 'USD' = 'USDC') {
      clock.advance(services.config.RATE_INTERVAL_SECONDS * 1000);
      const outcome = await services.rates.publish(orm.em.fork(), fixedMarket);
      if (!outcome.published) throw new Error('rate not published');
      return outcome.rates.find((r) => r.to === to)!;
    },
    async onramp(
      merchantId: string,
      type: 'THROWAWAY' | 'EPHEMERAL' | 'PERMANENT' = 'EPHEMERAL',
      rateId?: string,
      settlement: {
        mode: 'MERCHANT_BALANCE' | 'AUTO_WITHDRAW';
        asset?: string;
        chain?: string;
        destinationAddress?: string;
      } = { mode: 'MERCHANT_BALANCE' },
    ) {
      const to =
        settlement.mode === 'AUTO_WITHDRAW' ? (settlement.asset as 'USDC' | 'USDT') : 'USDC';
      const created = await services.onramps.create(orm.em.fork(), merchantId, {
        type,
        user: { email: 'ada@example.com' },
        rateId: type === 'PERMANENT' ? undefined : (rateId ?? (await kit.rate(to)).id),
        settlement,
      });
      return created.onramp;
    },
    async transfer(
      accountNumber: string,
      amountNgn: string,
      bankReference?: string,
      /** Who paid (the bank's sender fields); a return to the payer needs the account. */
      payer?: { senderName?: string; senderAccount?: string; senderBank?: string },
    ): Promise<DepositView> {
      serial += 1;
      const outcome = await services.ingestion.receive(orm.em.fork(), {
        accountNumber,
        amountNgn,
        bankReference: bankReference ?? `REF-${Date.now()}-${serial}-${Math.random()}`,
        ...payer,
      });
      if (outcome.kind !== 'deposit') throw new Error('transfer was unmatched');
      return outcome.deposit;
    },
    async events(depositId: string): Promise<Array<{ kind: string; status: string }>> {
      return orm.em
        .fork()
        .getConnection()
        .execute('select kind, status from events where deposit_id = ? order by seq', [depositId]);
    },
    async reload(depositId: string): Promise<Deposit> {
      // The whole row (internal columns too), as tests inspect it: not a merchant's read.
      return orm.em.fork().findOneOrFail(Deposit, { id: depositId });
    },
    async ownerOf(depositId: string): Promise<string | undefined> {
      const [row] = await orm.em
        .fork()
        .getConnection()
        .execute<Array<{ merchant_id: string }>>('select merchant_id from deposits where id = ?', [
          depositId,
        ]);
      return row?.merchant_id;
    },
  };
  return kit;
}
