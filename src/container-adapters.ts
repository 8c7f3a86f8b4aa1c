import type { EntityManager } from '@mikro-orm/postgresql';
import type { FxVenue } from './adapters/fx/fx-venue';
import type { ChainRegistry } from './adapters/chain/chain-registry';
import type { SettlementObserver } from './deposits';
import type { SigningLog } from './payouts';
import type { WebhookSender } from './webhooks';
import type { ReturnAdapters } from './container-returns';

/** What a test or another deployment hands `createServices` instead of the configured parts. */
export interface ServiceAdapters extends ReturnAdapters {
  /** The FX venue bound to an EntityManager (default: the one FX_VENUE names). */
  fxVenue?: (em: EntityManager) => FxVenue;
  /** The chains payouts use (default: from the *_RPC_URL settings). */
  chains?: ChainRegistry;
  /** Where the risk blocklist reports a file that stopped parsing (it keeps the last list). */
  onBlocklistError?: (error: unknown) => void;
  /** Where webhooks are sent (default: HTTP with the configured timeout). */
  webhookSender?: WebhookSender;
  /** DNS check of a webhook host when it is set (default: the system resolver). */
  resolvesToPublicOnly?: (hostname: string) => Promise<boolean>;
  /** Told about each deposit this process settles, after commit (the job runner's metrics). */
  onDepositSettled?: SettlementObserver;
  /** Where the payout signing drain reports its rounds and failures (the job runner's log). */
  payoutSigningLog?: SigningLog;
}
