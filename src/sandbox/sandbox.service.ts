import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { SandboxScenario } from './sandbox-scenario.entity';
import { type FxFailureScenario } from '../domain/sandbox-scenarios';
import { executeInTransaction, lockForTransaction } from '../db/locks';
import { invalidParameter } from '../domain/errors';
import { dec, isDecimalString } from '../domain/money';
import { parseChain } from '../domain/addresses';
import type { AuditLogService } from '../audit';

export interface ScenarioInput {
  rateSourceDown?: boolean | null;
  fxFailure?: string | null;
  /** NGN each new onramp receives automatically; '' or '0' turns auto-simulation off. */
  autoDepositNgn?: string | null;
  autoDepositDelaySeconds?: number | null;
  /** Chains whose payouts wait as if the chain were down; [] clears. */
  chainOutage?: string[] | null;
  riskReject?: boolean | null;
  /** The sandbox bank refuses this merchant's returns to the payer (RETURN_FAILED). */
  returnFailure?: boolean | null;
}

const FX_FAILURES: FxFailureScenario[] = ['NONE', 'TEMPORARY', 'PERMANENT'];
const MAX_DELAY_SECONDS = 86_400;

export interface DueAutoDeposit {
  onrampId: string;
  accountNumber: string;
  amountNgn: string;
}

/** The operator's switch that takes the rate source down for the whole deployment. */
const RATE_SOURCE_DOWN = 'rate_source_down';
/** pg_advisory_xact_lock key serialising changes of deployment switches. */
const SWITCH_LOCK = 4_201_017;

/**
 * Sandbox fault scenarios and auto-simulation: set and cleared by a sandbox merchant, for its
 * own onramps, deposits and payouts only. The deployment-wide switch is the operator's.
 */
export class SandboxService {
  constructor(
    private readonly clock: Clock,
    private readonly audit: AuditLogService,
  ) {}

  async get(em: EntityManager, merchantId: string): Promise<SandboxScenario> {
    return (
      (await em.findOne(SandboxScenario, { merchantId })) ??
      em.create(
        SandboxScenario,
        {
          merchantId,
          rateSourceDown: false,
          rateSourceDownSince: null,
          fxFailure: 'NONE',
          autoDepositNgn: null,
          autoDepositDelaySeconds: 0,
          chainOutage: [],
          riskReject: false,
          returnFailure: false,
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
    const rateSourceDown = input.rateSourceDown ?? current.rateSourceDown;
    const [row] = await em.upsertMany(SandboxScenario, [
      {
        merchantId,
        rateSourceDown,
        // Turning it on again keeps the first time: the quotes it hides stay hidden.
        rateSourceDownSince: rateSourceDown
          ? (current.rateSourceDownSince ?? this.clock.now())
          : null,
        fxFailure: fxFailure as FxFailureScenario,
        autoDepositNgn,
        autoDepositDelaySeconds: delay,
        chainOutage,
        riskReject: input.riskReject ?? current.riskReject,
        returnFailure: input.returnFailure ?? current.returnFailure,
        updatedAt: this.clock.now(),
      },
    ]);
    return row;
  }

  /** The operator's deployment-wide switch: the rate job publishes nothing while it is on. */
  async isDeploymentRateSourceDown(em: EntityManager): Promise<boolean> {
    const rows = await em
      .getConnection()
      .execute<Array<{ enabled: boolean }>>(
        'select enabled from deployment_switches where name = ?',
        [RATE_SOURCE_DOWN],
      );
    return rows[0]?.enabled ?? false;
  }

  /**
   * Operator only (CLI, admin GraphQL): takes the rate source down for every merchant, or
   * brings it back, audited in the same transaction. Setting it to what it is changes
   * nothing and is not audited again. Returns whether it is down now.
   */
  async setDeploymentRateSourceDown(
    em: EntityManager,
    actor: string,
    down: boolean,
  ): Promise<boolean> {
    return em.fork().transactional(async (tx) => {
      // Two operators switching at once: one after the other, each audited against the truth.
      await lockForTransaction(tx, SWITCH_LOCK);
      const before = await executeInTransaction<{ enabled: boolean }>(
        tx,
        'select enabled from deployment_switches where name = ?',
        [RATE_SOURCE_DOWN],
      );
      const was = before[0]?.enabled ?? false;
      if (was === down) return down;
      await executeInTransaction(
        tx,
        `insert into deployment_switches (name, enabled, updated_at) values (?, ?, ?)
         on conflict (name) do update set enabled = excluded.enabled, updated_at = excluded.updated_at`,
        [RATE_SOURCE_DOWN, down, this.clock.now()],
      );
      await this.audit.record(tx, {
        actor,
        action: down ? 'sandbox.rate_source_down' : 'sandbox.rate_source_up',
        targetType: 'deployment',
        targetId: RATE_SOURCE_DOWN,
        before: { enabled: was },
        after: { enabled: down },
      });
      return down;
    });
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
