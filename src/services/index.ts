import type { Clock } from '../clock';
import type { Config } from '../config';
import { KeyEnvironment } from '../db/entities/api-key.entity';
import { AuthService } from './auth.service';
import { HealthService } from './health.service';
import { MerchantService } from './merchant.service';
import { RateService } from './rate.service';
import { SandboxService } from './sandbox.service';
import { OnrampService } from './onramp.service';
import { VirtualAccountService } from './virtual-account.service';
import { IdempotencyService } from './idempotency.service';

/** The use cases both transports and the job runner call; built once per process. */
export interface Services {
  clock: Clock;
  config: Config;
  auth: AuthService;
  health: HealthService;
  merchants: MerchantService;
  rates: RateService;
  sandbox: SandboxService;
  accounts: VirtualAccountService;
  onramps: OnrampService;
  idempotency: IdempotencyService;
}

export function environmentOf(config: Config): KeyEnvironment {
  return config.ONRAMP_ENV === 'production' ? KeyEnvironment.Production : KeyEnvironment.Sandbox;
}

export function createServices(config: Config, clock: Clock): Services {
  const rates = new RateService(clock, {
    feeBps: config.FEE_BPS,
    intervalSeconds: config.RATE_INTERVAL_SECONDS,
    ttlSeconds: config.RATE_TTL_SECONDS,
  });
  const accounts = new VirtualAccountService(clock, {
    code: config.VA_BANK_CODE,
    name: config.VA_BANK_NAME,
  });
  return {
    clock,
    config,
    auth: new AuthService(environmentOf(config)),
    health: new HealthService(),
    merchants: new MerchantService(clock),
    rates,
    sandbox: new SandboxService(clock),
    accounts,
    onramps: new OnrampService(
      clock,
      { ttlSeconds: config.ONRAMP_TTL_SECONDS, dailyLimit: config.ONRAMP_DAILY_LIMIT },
      rates,
      accounts,
    ),
    idempotency: new IdempotencyService(clock),
  };
}
