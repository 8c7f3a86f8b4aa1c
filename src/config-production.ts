import { bankProviderProblems, bankProvidersAreSimulated } from './config-bank';
import { fxConfigProblems, fxVenueIsSimulated } from './config-fx';
import { rateSourceProblems, rateSourcesAreSimulated } from './config-rates';

type Settings = Parameters<typeof bankProviderProblems>[0] &
  Parameters<typeof rateSourceProblems>[0] &
  Parameters<typeof fxConfigProblems>[0];

/** What the production check reads (a Config; named by shape so config.ts can import this file). */
type ProductionSettings = { ONRAMP_ENV: string } & Parameters<typeof bankProvidersAreSimulated>[0] &
  Parameters<typeof rateSourcesAreSimulated>[0] &
  Parameters<typeof fxVenueIsSimulated>[0];

/** Settings the providers need together (a key for a listed provider...), each by its name. */
export function providerProblems(config: Settings): { path: string[]; message: string }[] {
  return [
    ...[...bankProviderProblems(config), ...rateSourceProblems(config)].map((problem) => ({
      path: [problem.path],
      message: problem.message,
    })),
    ...fxConfigProblems(config),
  ];
}

/**
 * Production moves real money, so it must not run on a simulation (API.md, "Real providers"):
 * the one line naming the first setting that still names the sandbox, or null. The processes
 * print it and exit 78 (EX_CONFIG), like any other configuration problem.
 */
export function productionSimulationProblem(config: ProductionSettings): string | null {
  if (config.ONRAMP_ENV !== 'production') return null;
  if (bankProvidersAreSimulated(config)) {
    return 'BANK_PROVIDERS: production cannot use the sandbox bank; list paystack, monnify or hmac';
  }
  if (rateSourcesAreSimulated(config)) {
    return 'RATE_SOURCES: production cannot use the sandbox rate walk; list real market sources';
  }
  if (fxVenueIsSimulated(config)) {
    return 'FX_VENUE: production cannot use the sandbox FX venue; set busha';
  }
  return null;
}

/** For process entry points: the problem on stderr and exit 78, or nothing. */
export function refuseSimulationsInProduction(config: ProductionSettings): void {
  const problem = productionSimulationProblem(config);
  if (!problem) return;
  process.stderr.write(`Invalid configuration: ${problem}\n`);
  process.exit(78); // EX_CONFIG
}
