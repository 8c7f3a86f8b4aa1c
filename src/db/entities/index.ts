import { ApiKey } from './api-key.entity';
import { Merchant } from './merchant.entity';
import { Onramp } from './onramp.entity';
import { Rate } from './rate.entity';
import { SandboxScenario } from './sandbox-scenario.entity';
import { Deposit } from './deposit.entity';

export { ApiKey, Deposit, Merchant, Onramp, Rate, SandboxScenario };
export const entities = [Merchant, ApiKey, Rate, SandboxScenario, Onramp, Deposit];
