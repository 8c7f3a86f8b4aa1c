import type { EntityManager } from '@mikro-orm/postgresql';
import { Dec, dec } from '../domain/money';
import { SandboxScenario } from './sandbox-scenario.entity';
import { type FxFailureScenario } from '../domain/sandbox-scenarios';
import {
  FxPermanentFailure,
  FxTemporaryFailure,
  type FxFill,
  type FxOrder,
  type FxOutcome,
  type FxVenue,
} from '../adapters/fx/fx-venue';

export interface SandboxFxVenueOptions {
  /** Milliseconds each call takes, as a real venue's round trip would (0: none). */
  latencyMs?: number;
}

/**
 * The sandbox venue fills every order at the quote's market rate, rounded down to 6 decimals,
 * so the same order always gets the same fill (idempotent by construction). A sandbox
 * merchant's `fxFailure` scenario makes it fail that merchant's orders. A batch reads the
 * scenarios of all its merchants at once.
 */
export class SandboxFxVenue implements FxVenue {
  readonly name = 'sandbox';

  constructor(
    private readonly em: EntityManager,
    private readonly options: SandboxFxVenueOptions = {},
  ) {}

  async execute(order: FxOrder): Promise<FxFill> {
    const [outcome] = await this.executeAll([order]);
    if ('error' in outcome) throw outcome.error;
    return outcome.fill;
  }

  async executeAll(orders: FxOrder[]): Promise<FxOutcome[]> {
    const merchantIds = [...new Set(orders.map((order) => order.merchantId))];
    const scenarios = await this.em.find(
      SandboxScenario,
      { merchantId: { $in: merchantIds }, fxFailure: { $ne: 'NONE' } },
      { fields: ['merchantId', 'fxFailure'] },
    );
    const failureOf = new Map<string, FxFailureScenario>(
      scenarios.map((s) => [s.merchantId, s.fxFailure]),
    );
    if (this.options.latencyMs) {
      await new Promise((resolve) => setTimeout(resolve, this.options.latencyMs));
    }
    return orders.map((order) => fill(order, failureOf.get(order.merchantId) ?? 'NONE'));
  }
}

function fill(order: FxOrder, failure: FxFailureScenario): FxOutcome {
  if (failure === 'TEMPORARY') {
    return { error: new FxTemporaryFailure('sandbox scenario: temporary FX failure') };
  }
  if (failure === 'PERMANENT') {
    return { error: new FxPermanentFailure('sandbox scenario: permanent FX failure') };
  }
  const usdBought = order.amountNgn
    .div(order.marketRateNgnPerUsd)
    .toDecimalPlaces(6, Dec.ROUND_DOWN);
  return { fill: { usdBought: dec(usdBought), venueReference: `sbx_fx_${order.clientOrderId}` } };
}
