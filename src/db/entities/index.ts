import { ApiKey } from './api-key.entity';
import { Merchant } from './merchant.entity';
import { Onramp } from './onramp.entity';
import { Rate } from './rate.entity';
import { SandboxScenario } from './sandbox-scenario.entity';

export { ApiKey, Merchant, Onramp, Rate, SandboxScenario };
export const entities = [Merchant, ApiKey, Rate, SandboxScenario, Onramp];
