import type { Deposit } from './deposit.entity';
import type { SettlementMode } from '../domain/onramp-kinds';

/** A deposit that reached SETTLED, reported once its transaction has committed. */
export interface SettledDeposit {
  depositId: string;
  mode: SettlementMode;
  createdAt: Date;
  settledAt: Date;
}

/** Told about every deposit this process settles (the job runner's settlement metrics). */
export type SettlementObserver = (settled: SettledDeposit) => void;

/** Reports a committed settlement; an observer that throws never changes the outcome. */
export function reportSettled(
  observer: SettlementObserver | undefined,
  deposit: Pick<Deposit, 'id' | 'settlementMode' | 'createdAt' | 'settledAt'>,
): void {
  if (!observer || !deposit.settledAt) return;
  try {
    observer({
      depositId: deposit.id,
      mode: deposit.settlementMode,
      createdAt: deposit.createdAt,
      settledAt: deposit.settledAt,
    });
  } catch {
    // metrics only
  }
}
