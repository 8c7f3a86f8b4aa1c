import type { Logger } from 'pino';
import { PgListener } from '../src/db/pg-listener';
import { settleDeposit } from './settle-deposit.job';
import type { Enqueue } from './job';

/** The payload the `deposits_status_event` trigger sends on channel `deposit_events`. */
interface DepositEventNotice {
  deposit_id: string;
  status: string;
  settlement_mode: string;
}

/**
 * Turns committed deposit status changes into jobs at once: a deposit entering PENDING_FX
 * (MERCHANT_BALANCE) is handed to settlement. NOTIFY arrives only after the ingestion commit,
 * so settlement never sees a deposit that could still roll back. Notices missed while
 * disconnected are picked up by the redrive sweep.
 */
export function listenForDepositEvents(
  databaseUrl: string,
  enqueue: Enqueue,
  log: Logger,
): PgListener {
  return new PgListener({
    databaseUrl,
    channels: ['deposit_events'],
    log,
    onNotification: (_channel, payload) => {
      let notice: DepositEventNotice;
      try {
        notice = JSON.parse(payload) as DepositEventNotice;
      } catch {
        log.warn({ payload }, 'unreadable deposit event notice');
        return;
      }
      if (notice.status === 'PENDING_FX' && notice.settlement_mode === 'MERCHANT_BALANCE') {
        settleDeposit(enqueue, notice.deposit_id).catch((error: unknown) =>
          log.warn({ err: error, depositId: notice.deposit_id }, 'could not enqueue settlement'),
        );
      }
    },
  });
}
