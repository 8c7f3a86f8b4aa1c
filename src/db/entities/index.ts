import { ApiKey } from './api-key.entity';
import { Merchant } from './merchant.entity';
import { Rate } from './rate.entity';
import { SandboxScenario } from './sandbox-scenario.entity';

export { ApiKey, Merchant, Rate, SandboxScenario };
export const entities = [Merchant, ApiKey, Rate, SandboxScenario];
