import { ApiKey } from './merchants/api-key.entity';
import { Merchant } from './merchants/merchant.entity';
import { Onramp } from './onramps/onramp.entity';
import { Rate } from './rates/rate.entity';
import { SandboxScenario } from './sandbox/sandbox-scenario.entity';
import { Deposit } from './deposits/deposit.entity';
import { Payout } from './payouts/payout.entity';
import { Withdrawal } from './payouts/withdrawal.entity';
import { WithdrawalAddress } from './payouts/withdrawal-address.entity';
import { WebhookEndpoint } from './webhooks/webhook-endpoint.entity';
import { WebhookDelivery } from './webhooks/webhook-delivery.entity';

export {
  ApiKey,
  Deposit,
  Merchant,
  Onramp,
  Payout,
  Rate,
  SandboxScenario,
  WebhookDelivery,
  WebhookEndpoint,
  Withdrawal,
  WithdrawalAddress,
};
export const entities = [
  Merchant,
  ApiKey,
  Rate,
  SandboxScenario,
  Onramp,
  Deposit,
  Withdrawal,
  Payout,
  WebhookEndpoint,
  WebhookDelivery,
  WithdrawalAddress,
];
