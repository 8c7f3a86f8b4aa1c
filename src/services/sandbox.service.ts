import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { SandboxScenario, type FxFailureScenario } from '../db/entities/sandbox-scenario.entity';
import { executeInTransaction } from '../db/locks';
import { invalidParameter } from '../domain/errors';
import { dec, isDecimalString } from '../domain/money';
import { parseChain } from '../domain/addresses';

export interface ScenarioInput {
  rateSourceDown?: boolean | null;
  fxFailure?: string | null;
  /** NGN each new onramp receives automatically; '' or '0' turns auto-simulation off. */
  autoDepositNgn?: string | null;
  autoDepositDelaySeconds?: number | null;
  /** Chains whose payouts wait as if the chain were down; [] clears. */
  chainOutage?: string[] | null;
  riskReject?: boolean | null;
}

const FX_FAILURES: FxFailureScenario[] = ['NONE', 'TEMPORARY', 'PERMANENT'];
const MAX_DELAY_SECONDS = 86_400;

export interface DueAutoDeposit {
  onrampId: string;
  accountNumber: string;
  amountNgn: string;
}

/** Sandbox fault scenarios and auto-simulation: set and cleared by a sandbox merchant. */
export class SandboxService {
  constructor(private readonly clock: Clock) {}

  async get(em: EntityManager, merchantId: string): Promise<SandboxScenario> {
    return (
      (await em.findOne(SandboxScenario, { merchantId })) ??
      em.create(
        SandboxScenario,
        {
          merchantId,
          rateSourceDown: false,
          fxFailure: 'NONE',
          autoDepositNgn: null,
          autoDepositDelaySeconds: 0,
          chainOutage: [],
          riskReject: false,
          updatedAt: this.clock.now(),
        },
        { persist: false },
      )
    );
  }

  /** Fields left out of the input (or null) keep their value. */
  async set(em: EntityManager, merchantId: string, input: ScenarioInput): Promise<SandboxScenario> {
    const current = await this.get(em, merchantId);
    const fxFailure = input.fxFailure ?? current.fxFailure;
    if (!FX_FAILURES.includes(fxFailure as FxFailureScenario)) {
      throw invalidParameter('fxFailure', 'must be NONE, TEMPORARY or PERMANENT');
    }
    let autoDepositNgn = current.autoDepositNgn;
    if (input.autoDepositNgn !== undefined && input.autoDepositNgn !== null) {
      const value = input.autoDepositNgn.trim();
      if (value === '' || (isDecimalString(value, 2) && dec(value).isZero())) {
        autoDepositNgn = null;
      } else if (isDecimalString(value, 2) && dec(value).lte('100000000000')) {
        autoDepositNgn = dec(value).toFixed(2);
      } else {
        throw invalidParameter('autoDepositNgn', 'must be an NGN amount with at most 2 decimals');
      }
    }
    const delay = input.autoDepositDelaySeconds ?? current.autoDepositDelaySeconds;
    if (!Number.isInteger(delay) || delay < 0 || delay > MAX_DELAY_SECONDS) {
      throw invalidParameter('autoDepositDelaySeconds', `must be 0 to ${MAX_DELAY_SECONDS}`);
    }
    let chainOutage = current.chainOutage;
    if (input.chainOutage !== undefined && input.chainOutage !== null) {
      const chains = input.chainOutage.map((name) => parseChain(name));
      if (chains.some((chain) => !chain)) {
        throw invalidParameter(
          'chainOutage',
          'each entry must be BASE, ETHEREUM (or ETH) or POLYGON',
        );
      }
      chainOutage = [...new Set(chains as string[])].sort();
    }
    const [row] = await em.upsertMany(SandboxScenario, [
      {
        merchantId,
        rateSourceDown: input.rateSourceDown ?? current.rateSourceDown,
        fxFailure: fxFailure as FxFailureScenario,
        autoDepositNgn,
        autoDepositDelaySeconds: delay,
        chainOutage,
        riskReject: input.riskReject ?? current.riskReject,
        updatedAt: this.clock.now(),
      },
    ]);
    return row;
  }

  /** Rates are deployment-wide, so any sandbox merchant's `rateSourceDown` stops the source. */
  async isRateSourceDown(em: EntityManager): Promise<boolean> {
    return (await em.count(SandboxScenario, { rateSourceDown: true })) > 0;
  }

  /**
   * Inside onramp creation: when the merchant asked for auto-simulation, the transfer is
   * scheduled with the onramp, so it survives restarts and happens once.
   */
  async scheduleAutoDeposit(
    tx: EntityManager,
    merchantId: string,
    onrampId: string,
    accountNumber: string,
  ): Promise<void> {
    const scenario = await tx.findOne(SandboxScenario, { merchantId });
    if (!scenario?.autoDepositNgn) return;
    const dueAt = new Date(this.clock.now().getTime() + scenario.autoDepositDelaySeconds * 1000);
    await executeInTransaction(
      tx,
      `insert into sandbox_auto_deposits (onramp_id, account_number, amount_ngn, due_at)
       values (?, ?, ?, ?) on conflict (onramp_id) do nothing`,
      [onrampId, accountNumber, scenario.autoDepositNgn, dueAt],
    );
  }

  async dueAutoDeposits(em: EntityManager, limit = 100): Promise<DueAutoDeposit[]> {
    const rows = await em
      .getConnection()
      .execute<Array<{ onramp_id: string; account_number: string; amount_ngn: string }>>(
        `select onramp_id, account_number, amount_ngn::text as amount_ngn from sandbox_auto_deposits
        where done_at is null and due_at <= ? order by due_at limit ?`,
        [this.clock.now(), limit],
      );
    return rows.map((r) => ({
      onrampId: r.onramp_id,
      accountNumber: r.account_number,
      amountNgn: r.amount_ngn,
    }));
  }

  async markAutoDepositDone(em: EntityManager, onrampId: string): Promise<void> {
    await em
      .getConnection()
      .execute('update sandbox_auto_deposits set done_at = ? where onramp_id = ?', [
        this.clock.now(),
        onrampId,
      ]);
  }
}
