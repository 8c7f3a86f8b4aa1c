import type { Clock } from './clock';
import type { Config } from './config';
import type { EntityManager } from '@mikro-orm/postgresql';
import { httpBankNotifier } from './adapters/bank/http-bank-notifier';
import type { ReturnNotifier } from './adapters/bank/bank-adapter';
import { SandboxBankTransfers } from './sandbox';
import type { ReturnNotification } from './adapters/bank/bank-adapter';

/**
 * Where an outcome goes in-process: the deposits module's return outcomes (a port, so this
 * file imports no module).
 */
export interface ReturnOutcomeSink {
  notified(em: EntityManager, event: ReturnNotification): Promise<unknown>;
}

/**
 * The default bank for returns: the sandbox bank, notifying each outcome after
 * `SANDBOX_BANK_RETURN_DELAY_MS`. Over real HTTP, signed, when the runner knows the gateway
 * (`SANDBOX_BANK_GATEWAY_URL`) and the secret the route checks (`BANK_WEBHOOK_SECRET`);
 * otherwise in-process through the handler the route calls (`ReturnOutcomes.notified`).
 */
export function sandboxBankFromConfig(
  config: Config,
  clock: Clock,
  outcomes: ReturnOutcomeSink,
  onNotifyError?: (error: unknown, reference: string) => void,
): SandboxBankTransfers {
  const notify: ReturnNotifier =
    config.SANDBOX_BANK_GATEWAY_URL && config.BANK_WEBHOOK_SECRET
      ? httpBankNotifier({
          gatewayUrl: config.SANDBOX_BANK_GATEWAY_URL,
          secret: config.BANK_WEBHOOK_SECRET,
          clock,
        })
      : async (event, em) => {
          await outcomes.notified(em, event);
        };
  return new SandboxBankTransfers({
    delayMs: config.SANDBOX_BANK_RETURN_DELAY_MS,
    notify,
    ...(onNotifyError ? { onNotifyError } : {}),
  });
}
