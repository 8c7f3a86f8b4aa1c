import type { Command } from 'commander';
import type { MerchantTermsView } from '../flows/merchant-terms';
import { cliActor, print, withServices } from './cli-support';

function termsLine(view: MerchantTermsView): string {
  const who =
    view.reversal_liability_override === null
      ? `${view.reversal_liability} (the default)`
      : view.reversal_liability;
  const reserve = view.reserve
    ? `${view.reserve.percent_bps} bps held for ${view.reserve.hold_days} days`
    : 'none';
  return `Merchant ${view.merchant_id}: reversal liability ${who}; reserve ${reserve}.`;
}

/**
 * `onramp merchants liability ID merchant|operator` and `onramp merchants reserve ID
 * --percent-bps N --hold-days D | --clear` (docs/cli.md). Values reach the service as typed:
 * it refuses anything but whole numbers in range (invalid_parameter, exit 1) before it
 * changes anything.
 */
export function addMerchantTermsCommands(merchants: Command): void {
  merchants
    .command('liability')
    .description(
      "Who bears this merchant's bank reversals of SETTLED deposits: merchant (its balance is debited, and may go below zero) or operator",
    )
    .argument('<merchantId>', 'merchant id (mer_...)')
    .argument('<liability>', 'merchant or operator')
    .option('--json', 'print JSON')
    .action(async (merchantId: string, liability: string, opts: { json?: boolean }) =>
      withServices(async (orm, services) => {
        const view = await services.merchantTerms.setLiability(
          orm.em,
          cliActor(),
          merchantId,
          liability,
        );
        print(!!opts.json, view, termsLine(view));
      }),
    );

  merchants
    .command('reserve')
    .description(
      'Hold a share of each later balance settlement of this merchant in usd_reserved for some days, or --clear the reserve (holds already made are released when due)',
    )
    .argument('<merchantId>', 'merchant id (mer_...)')
    .option('--percent-bps <n>', 'share held, in basis points (0-10000)')
    .option('--hold-days <d>', 'days each hold waits (0-365)')
    .option('--clear', 'no reserve on later settlements')
    .option('--json', 'print JSON')
    .action(async function (
      this: Command,
      merchantId: string,
      opts: { percentBps?: string; holdDays?: string; clear?: boolean; json?: boolean },
    ) {
      const given = opts.percentBps !== undefined || opts.holdDays !== undefined;
      if (opts.clear ? given : opts.percentBps === undefined || opts.holdDays === undefined) {
        this.error('error: give --percent-bps and --hold-days, or --clear alone', {
          exitCode: 2,
        });
      }
      await withServices(async (orm, services) => {
        const view = await services.merchantTerms.setReserve(
          orm.em,
          cliActor(),
          merchantId,
          opts.clear ? null : { percentBps: opts.percentBps, holdDays: opts.holdDays },
        );
        print(!!opts.json, view, termsLine(view));
      });
    });
}
