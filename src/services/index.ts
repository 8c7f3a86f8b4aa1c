import type { Clock } from '../clock';
import type { Config } from '../config';
import { KeyEnvironment } from '../db/entities/api-key.entity';
import { AuthService } from './auth.service';
import { HealthService } from './health.service';
import { MerchantService } from './merchant.service';
import { RateService } from './rate.service';
import { SandboxService } from './sandbox.service';

/** The use cases both transports and the job runner call; built once per process. */
export interface Services {
  clock: Clock;
  config: Config;
  auth: AuthService;
  health: HealthService;
  merchants: MerchantService;
  rates: RateService;
  sandbox: SandboxService;
}

export function environmentOf(config: Config): KeyEnvironment {
  return config.ONRAMP_ENV === 'production' ? KeyEnvironment.Production : KeyEnvironment.Sandbox;
}

export function createServices(config: Config, clock: Clock): Services {
  return {
    clock,
    config,
    auth: new AuthService(environmentOf(config)),
    health: new HealthService(),
    merchants: new MerchantService(clock),
    rates: new RateService(clock, {
      feeBps: config.FEE_BPS,
      intervalSeconds: config.RATE_INTERVAL_SECONDS,
      ttlSeconds: config.RATE_TTL_SECONDS,
    }),
    sandbox: new SandboxService(clock),
  };
}
