import type { ConfigSection } from './config-docs-types';

/**
 * What each setting of rates, banks, settlement and chains means to an operator: the text of docs/configuration.md and
 * .env.example (`npm run docs:generate`). Defaults, types and ranges come from `configSchema`
 * itself; a `default` here is only for settings whose schema has none (it depends on
 * ONRAMP_ENV or is derived at start).
 */
export const MONEY_CONFIG_SECTIONS: ConfigSection[] = [
  {
    title: 'Rates and onramps',
    fields: {
      RATE_INTERVAL_SECONDS: { text: 'How often a new set of rates is published.' },
      RATE_TTL_SECONDS: { text: 'How long a published rate stays valid.' },
      FEE_BPS: { text: 'Fee in basis points applied to published rates (0-9999).' },
      ONRAMP_TTL_SECONDS: { text: 'Lifetime of a `THROWAWAY` or `EPHEMERAL` onramp.' },
      EXPIRY_SWEEP_SECONDS: {
        text: 'How often expired onramps are marked EXPIRED and their accounts freed (reads show EXPIRED at once).',
      },
      RATE_SOURCES: {
        text: '`sandbox` (the simulated walk) or a comma list of real sources (`quidax`, `luno`, `coinbase`, `coingecko`): the median of those that agree is published ([providers-rates.md](providers-rates.md)). Never mixed.',
      },
      RATE_SOURCES_MIN: {
        text: 'Real sources: fresh prices that must agree before a rate is published (at most the number of sources).',
      },
      RATE_SOURCES_MAX_SPREAD_BPS: {
        text: 'Real sources: a price agrees when within this many basis points of the median of the fresh prices (0-10000).',
      },
      RATE_SOURCES_MAX_AGE_SECONDS: {
        text: "Real sources: a price whose source's own timestamp is older than this is stale and left out.",
      },
      RATE_SOURCE_TIMEOUT_MS: {
        text: "Real sources: each source's answer must arrive within this long (all are asked at once).",
      },
      QUIDAX_BASE_URL: { text: "Quidax's public market API." },
      LUNO_BASE_URL: { text: "Luno's public market API." },
      COINBASE_BASE_URL: { text: "Coinbase's public exchange-rates API." },
      COINGECKO_BASE_URL: { text: "CoinGecko's API." },
      COINGECKO_API_KEY: { text: "CoinGecko's Demo plan key, sent as `x-cg-demo-api-key`." },
    },
  },
  {
    title: 'Bank providers',
    fields: {
      BANK_PROVIDERS: {
        text: 'Ordered, comma-separated: `paystack`, `monnify`, `hmac`, `sandbox`. New accounts come from the first that can serve; the next on failure. Notifications from each at `POST /bank/{provider}/notifications`; [providers.md](providers.md).',
      },
      BANK_PROVIDER_TIMEOUT_MS: {
        text: "Timeout of each call to a bank provider's API (100-120000).",
      },
      BANK_PROVIDER_COOLDOWN_SECONDS: {
        text: 'How long a provider that failed (account creation, health check) is passed over.',
      },
      BANK_PROVIDER_CHECK_SECONDS: {
        text: "How often each process checks every provider's API (`/health`, failover).",
      },
      BANK_SWEEP_SECONDS: {
        text: 'How often the job runner asks each provider for transfers no notification brought.',
      },
      BANK_SWEEP_LOOKBACK_HOURS: { text: 'How far back each sweep looks.' },
      BANK_WEBHOOK_SECRET: {
        text: "HMAC secret of the bank provider's notifications (16+ characters). Unset: `POST /v1/bank/notifications` is not served.",
      },
      PAYSTACK_SECRET_KEY: {
        text: "Paystack's secret key (`sk_live_...`); it also signs Paystack's notifications. Required with `paystack`.",
      },
      PAYSTACK_BASE_URL: { text: "Paystack's API." },
      PAYSTACK_PREFERRED_BANK: {
        text: 'Bank slug for new dedicated accounts (`GET /dedicated_account/available_providers`; `test-bank` with a test key).',
      },
      MONNIFY_API_KEY: { text: "Monnify's API key. Required with `monnify`." },
      MONNIFY_SECRET_KEY: {
        text: "Monnify's secret key; it also signs Monnify's notifications. Required with `monnify`.",
      },
      MONNIFY_CONTRACT_CODE: { text: "Monnify's contract code. Required with `monnify`." },
      MONNIFY_SOURCE_ACCOUNT: {
        text: 'The 10-digit Monnify wallet returns are paid from. Required with `monnify`.',
      },
      MONNIFY_PREFERRED_BANKS: {
        text: 'Comma-separated bank codes for new reserved accounts; unset: all Monnify offers.',
      },
      MONNIFY_BASE_URL: { text: "Monnify's API (its sandbox: `https://sandbox.monnify.com`)." },
      VA_BANK_CODE: {
        text: 'The bank of the pooled virtual accounts (the `sandbox` and `hmac` providers), as a 3-digit CBN code.',
      },
      VA_BANK_NAME: { text: 'The display name of that bank.' },
      SANDBOX_BANK_RETURN_DELAY_MS: {
        text: "Sandbox bank: milliseconds between accepting a return to the payer and notifying its outcome, as a real bank's processing.",
      },
      SANDBOX_BANK_GATEWAY_URL: {
        text: "Job runner, sandbox bank: a gateway's base URL; with `BANK_WEBHOOK_SECRET` set, return notifications are signed HTTP POSTs to its `/v1/bank/notifications` (otherwise delivered in-process).",
      },
      RETURN_FEE_NGN: {
        text: "Flat NGN the operator keeps from each return to the payer (at most the deposit's amount).",
      },
      RETURN_SWEEP_SECONDS: {
        text: 'How often the job runner looks for returns to send or ask the bank about again (new ones are sent at once).',
      },
    },
  },
  {
    title: 'Settlement and FX venue',
    fields: {
      REVERSAL_LIABILITY: {
        text: 'Who bears a bank reversal of a SETTLED deposit: `operator` (absorbs the loss) or `merchant` (its balance is debited `amount_asset`, possibly below zero). Per merchant: `onramp merchants liability`.',
      },
      RESERVE_DAY_SECONDS: {
        text: 'The length of a reserve day (`onramp merchants reserve --hold-days` counts these); tests shorten it.',
      },
      RESERVE_RELEASE_POLL_MS: {
        text: 'How often a job runner releases the reserve holds that are due.',
      },
      DEPOSIT_REDRIVE_SECONDS: {
        text: 'Crash repair: how long a settlement batch holds its deposits; past it, the next drain takes them (same FX orders).',
      },
      SETTLEMENT_BATCH_SIZE: {
        text: 'PENDING_FX deposits one settlement batch claims at most (1-1000).',
      },
      SETTLEMENT_SWEEP_MS: {
        text: "How often each job runner's settlement sweep runs: the safety net behind the NOTIFY that wakes settlement at once.",
      },
      SETTLEMENT_GATHER_MS: {
        text: "A deposit's notice starts settlement this long after, so the deposits arriving meanwhile settle in one batch (0: at once).",
      },
      FX_VENUE: {
        text: 'Where settlement sells NGN for USD: `sandbox` (simulated fills) or `busha` (Busha Business quotes and transfers, idempotent by deposit; [providers-fx.md](providers-fx.md)).',
      },
      BUSHA_SECRET_KEY: {
        text: "`FX_VENUE=busha`: Busha's secret API key as its dashboard gives it, sent as `Authorization: Bearer`. Required with that venue.",
      },
      BUSHA_BASE_URL: {
        text: "Busha's API address (its sandbox: `https://api.sandbox.busha.so`; the tests: a stand-in).",
      },
      BUSHA_PROFILE_ID: {
        text: "`X-BU-PROFILE-ID`: convert in this Busha profile's balances (a customer's); unset: the business's own.",
      },
      BUSHA_TARGET_CURRENCY: { text: 'What NGN is sold for at Busha: `USDT`, `USDC` or `USD`.' },
      BUSHA_TIMEOUT_MS: {
        text: 'How long one Busha request may take (100-120000); one process holds an order for twice this at a time.',
      },
      SANDBOX_FX_LATENCY_MS: {
        text: "Sandbox FX venue: milliseconds each batch of orders takes, as a real venue's round trip would.",
      },
    },
  },
  {
    title: 'Chains and payouts',
    fields: {
      BASE_RPC_URL: {
        text: 'JSON-RPC endpoints of the chains. All unset: `npm start` runs local anvil chains and fills these in for its processes.',
      },
      ETHEREUM_RPC_URL: {
        text: 'JSON-RPC endpoints of the chains. All unset: `npm start` runs local anvil chains and fills these in for its processes.',
      },
      POLYGON_RPC_URL: {
        text: 'JSON-RPC endpoints of the chains. All unset: `npm start` runs local anvil chains and fills these in for its processes.',
      },
      BASE_RPC_URLS: {
        text: "Several nodes of the chain, comma-separated, instead of its `_RPC_URL` (not both): failover with viem's `fallback` over the nodes that answer and are not lagging; see docs/chains.md.",
      },
      ETHEREUM_RPC_URLS: {
        text: "Several nodes of the chain, comma-separated, instead of its `_RPC_URL` (not both): failover with viem's `fallback` over the nodes that answer and are not lagging; see docs/chains.md.",
      },
      POLYGON_RPC_URLS: {
        text: "Several nodes of the chain, comma-separated, instead of its `_RPC_URL` (not both): failover with viem's `fallback` over the nodes that answer and are not lagging; see docs/chains.md.",
      },
      RPC_MAX_LAG_BLOCKS: {
        text: 'A node whose head is further behind the highest head of its chain is not asked (reads, confirmations) while it lags.',
      },
      BASE_HOT_WALLET_MIN_GAS: {
        text: 'Native coin below which the hot wallet is reported low on this chain (alert `hot_wallet_low_balance`, metric `onramp_hot_wallet_low`); payouts the wallet cannot pay wait, unsigned, until it is funded.',
      },
      ETHEREUM_HOT_WALLET_MIN_GAS: {
        text: 'Native coin below which the hot wallet is reported low on this chain (alert `hot_wallet_low_balance`, metric `onramp_hot_wallet_low`); payouts the wallet cannot pay wait, unsigned, until it is funded.',
      },
      POLYGON_HOT_WALLET_MIN_GAS: {
        text: 'Native coin below which the hot wallet is reported low on this chain (alert `hot_wallet_low_balance`, metric `onramp_hot_wallet_low`); payouts the wallet cannot pay wait, unsigned, until it is funded.',
      },
      HOT_WALLET_MIN_TOKEN_BALANCE: {
        text: 'USDC or USDT on a chain below which the hot wallet is reported low for that token (alert, metric).',
      },
      BASE_USDC_ADDRESS: {
        text: 'The USDC contract on Base. A chain without its RPC URL, both token addresses and the hot-wallet key is treated as down: its payouts wait.',
      },
      BASE_USDT_ADDRESS: { text: 'The USDT contract on Base.' },
      ETHEREUM_USDC_ADDRESS: { text: 'The USDC contract on Ethereum.' },
      ETHEREUM_USDT_ADDRESS: { text: 'The USDT contract on Ethereum.' },
      POLYGON_USDC_ADDRESS: { text: 'The USDC contract on Polygon.' },
      POLYGON_USDT_ADDRESS: { text: 'The USDT contract on Polygon.' },
      BASE_CONFIRMATIONS: {
        text: 'Blocks on Base, counting its own, before a payout counts as confirmed (`1`: mined).',
      },
      ETHEREUM_CONFIRMATIONS: {
        text: 'Blocks on Ethereum, counting its own, before a payout counts as confirmed.',
      },
      POLYGON_CONFIRMATIONS: {
        text: 'Blocks on Polygon, counting its own, before a payout counts as confirmed.',
      },
      HOT_WALLET_PRIVATE_KEY: {
        text: "The key (0x + 64 hex) that signs payouts on every chain: the job runner only (a gateway given it refuses to start, exit 78). Local chains use anvil's public dev key.",
      },
      HOT_WALLET_ADDRESS: {
        text: "The hot wallet's address, for the gateway (treasury balances). `npm start` derives it. The runner checks it matches the key.",
      },
      PAYOUT_STUCK_SECONDS: {
        text: 'An unmined payout is replaced at the same nonce with higher fees after this long.',
      },
      PAYOUT_POLL_MS: {
        text: 'How often the sweep probes chains and repairs in-flight payouts (fee bumps, resends, receipts the follower missed).',
      },
      PAYOUT_BLOCK_POLL_MS: {
        text: "How often the job runner asks each chain for its head; every new block's payouts are settled in one transaction.",
      },
      PAYOUT_SIGN_GATHER_MS: {
        text: "A new payout's notice starts its chain's signing round this long after, so the payouts that arrive meanwhile are signed in one transaction (0: at once).",
      },
      PAYOUT_CONFIRM_GRACE_MS: {
        text: "While the runner follows a chain's blocks, the sweep checks only payouts signed longer ago than this.",
      },
      CHAIN_OUTAGE_MAX_SECONDS: {
        text: 'A payout still unsigned this long because its chain is down FLAGs its deposit (a withdrawal: FAILED).',
      },
      RISK_BLOCKLIST_FILE: {
        text: 'Addresses (one per line, `#` comments) that risk review refuses to pay; re-read when the file changes.',
      },
      SANCTIONS_LIST_PATH: {
        text: 'A sanctions list file (one EVM address per line, `#` comments, `# date: YYYY-MM-DD`) put in force at start instead of the shipped OFAC snapshot, unless an operator\'s `onramp sanctions update` is in force (docs/cli.md, "Sanctions list"). Unset: the snapshot, when one ships.',
      },
      LOCAL_CHAIN_BLOCK_SECONDS: {
        text: 'Block time of the local anvil chains (`npm start` only).',
      },
    },
  },
];
