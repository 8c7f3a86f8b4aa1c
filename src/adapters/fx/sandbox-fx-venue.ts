import type { EntityManager } from '@mikro-orm/postgresql';
import { Dec, dec } from '../../domain/money';
import { SandboxScenario } from '../../db/entities/sandbox-scenario.entity';
import {
  FxPermanentFailure,
  FxTemporaryFailure,
  type FxFill,
  type FxOrder,
  type FxVenue,
} from './fx-venue';

/**
 * The sandbox venue fills every order at the quote's market rate, rounded down to 6 decimals,
 * so the same order always gets the same fill (idempotent by construction). A sandbox
 * merchant's `fxFailure` scenario makes it fail that merchant's orders.
 */
export class SandboxFxVenue implements FxVenue {
  readonly name = 'sandbox';

  constructor(private readonly em: EntityManager) {}

  async execute(order: FxOrder): Promise<FxFill> {
    const scenario = await this.em.findOne(
      SandboxScenario,
      { merchantId: order.merchantId },
      { fields: ['fxFailure'] },
    );
    if (scenario?.fxFailure === 'TEMPORARY') {
      throw new FxTemporaryFailure('sandbox scenario: temporary FX failure');
    }
    if (scenario?.fxFailure === 'PERMANENT') {
      throw new FxPermanentFailure('sandbox scenario: permanent FX failure');
    }
    const usdBought = order.amountNgn
      .div(order.marketRateNgnPerUsd)
      .toDecimalPlaces(6, Dec.ROUND_DOWN);
    return { usdBought: dec(usdBought), venueReference: `sbx_fx_${order.clientOrderId}` };
  }
}
