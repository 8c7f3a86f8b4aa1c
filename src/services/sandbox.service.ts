import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { SandboxScenario } from '../db/entities/sandbox-scenario.entity';

export interface ScenarioInput {
  rateSourceDown?: boolean | null;
}

/** Sandbox fault scenarios: set and cleared by a sandbox merchant through GraphQL. */
export class SandboxService {
  constructor(private readonly clock: Clock) {}

  async get(em: EntityManager, merchantId: string): Promise<SandboxScenario> {
    return (
      (await em.findOne(SandboxScenario, { merchantId })) ??
      em.create(
        SandboxScenario,
        { merchantId, rateSourceDown: false, updatedAt: this.clock.now() },
        { persist: false },
      )
    );
  }

  /** Fields left out of the input (or null) keep their value. */
  async set(em: EntityManager, merchantId: string, input: ScenarioInput): Promise<SandboxScenario> {
    const current = await this.get(em, merchantId);
    const [row] = await em.upsertMany(SandboxScenario, [
      {
        merchantId,
        rateSourceDown: input.rateSourceDown ?? current.rateSourceDown,
        updatedAt: this.clock.now(),
      },
    ]);
    return row;
  }

  /** Rates are deployment-wide, so any sandbox merchant's `rateSourceDown` stops the source. */
  async isRateSourceDown(em: EntityManager): Promise<boolean> {
    return (await em.count(SandboxScenario, { rateSourceDown: true })) > 0;
  }
}
