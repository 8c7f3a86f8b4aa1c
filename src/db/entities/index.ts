import { ApiKey } from './api-key.entity';
import { Merchant } from './merchant.entity';
import { Onramp } from './onramp.entity';
import { Rate } from './rate.entity';
import { SandboxScenario } from './sandbox-scenario.entity';
import { Deposit } from './deposit.entity';
import { Payout } from './payout.entity';
import { Withdrawal } from './withdrawal.entity';
import { WithdrawalAddress } from './withdrawal-address.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookDelivery } from './webhook-delivery.entity';

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
