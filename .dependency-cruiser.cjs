/**
 * The module boundaries of docs/architecture.md, checked from the import graph (issue 34).
 * `test/unit/layout.test.ts` runs this in `npm test`; `npm run check:layout` prints it.
 *
 * Layers, lowest first (a layer imports only its own and lower ones):
 *  - core: pure rules and plumbing every module uses (domain, db, context, lib, logging,
 *    crypto primitives, configuration, clock);
 *  - adapters: the outside world behind interfaces; they import no module;
 *  - shared core modules: ledger, events, audit (every module may post, publish and audit);
 *  - modules: one aggregate each, owning its tables; they import no other module, except the
 *    named cross-module SQL compositions in MODULE_ALLOWLIST;
 *  - flows: use cases spanning modules, each on one explicit transaction; read models
 *    (reports) read several modules the same way;
 *  - composition and transports: api, jobs, cli, metrics, embedded, container, gateway.
 */
const CORE =
  '^src/(domain|db|context|lib|logging|crypto)/|^src/(clock|config[a-z-]*|logger|version)\\.ts$';
const SHARED_CORE = ['ledger', 'events', 'audit'];
const MODULES = [
  'deposits',
  'onramps',
  'payouts',
  'webhooks',
  'merchants',
  'operator',
  'rates',
  'sandbox',
  'system',
  'reconciliation',
  'sanctions',
];
/**
 * Read models: own no table, read several modules through their entry points (the deposit and
 * ledger reports), like a flow that only reads.
 */
const READ_MODELS = ['reports'];
/** The adapter files a module may import: interfaces and pure helpers, never an implementation. */
const ADAPTER_INTERFACES = [
  'src/adapters/bank/bank-provider.ts',
  'src/adapters/bank/bank-providers.ts',
  'src/adapters/bank/bank-transfers.ts',
  'src/adapters/bank/bank-adapter.ts',
  'src/adapters/fx/fx-venue.ts',
  'src/adapters/fx/rate-source.ts',
  'src/adapters/chain/chain-gateway.ts',
  'src/adapters/chain/chain-registry.ts',
  'src/adapters/chain/chain-error-message.ts',
  'src/adapters/webhook/webhook-sender.ts',
  'src/adapters/webhook/webhook-signer.ts',
];
/**
 * Module-to-module imports allowed, each a named cross-module SQL composition: the importing
 * module composes a query fragment or read the other hands out. Everything else crosses
 * modules in src/flows.
 */
const MODULE_ALLOWLIST = [
  {
    from: 'src/deposits/arrival-read.ts',
    to: 'src/merchants/merchant-sql.ts',
    why: 'a transfer arrives: the merchant status and payment rules are columns of its one read',
  },
  {
    from: 'src/deposits/arrival-read.ts',
    to: 'src/onramps/onramp-sql.ts',
    why: 'a transfer arrives: the onramp holding the account number, in the same read',
  },
  {
    from: 'src/deposits/arrival-read.ts',
    to: 'src/rates/rate-sql.ts',
    why: 'a transfer arrives: the rate it is priced at, a lateral join of the same read',
  },
  {
    from: 'src/deposits/deposit-ingestion.service.ts',
    to: 'src/onramps/onramp-sql.ts',
    why: 'a THROWAWAY onramp completes in the transaction that records its deposit',
  },
  {
    from: 'src/deposits/deposit-settlement.service.ts',
    to: 'src/onramps/onramp-sql.ts',
    why: 'a settlement batch reads its onramps’ destinations in one query',
  },
  {
    from: 'src/deposits/settlement-screening.ts',
    to: 'src/onramps/onramp-sql.ts',
    why: 'sanctions screening reads a settlement batch’s destinations in one query',
  },
  {
    from: 'src/deposits/settlement-claim.ts',
    to: 'src/rates/rate-sql.ts',
    why: 'claiming deposits to settle picks each one’s rate in the claiming statement',
  },
  {
    from: 'src/deposits/return-sender.ts',
    to: 'src/onramps/account-provider.ts',
    why: 'a return goes out through the provider that opened the account: a subquery',
  },
  {
    from: 'src/merchants/auth.service.ts',
    to: 'src/onramps/client-secret-reads.ts',
    why: 'a client secret authenticates with its merchant in one read (every request)',
  },
  {
    from: 'src/rates/rate.service.ts',
    to: 'src/sandbox/scenario-reads.ts',
    why: 'a sandbox merchant’s rate-source outage bounds the rates it is quoted, in the query',
  },
  {
    from: 'src/deposits/risk-review.service.ts',
    to: 'src/sandbox/scenario-reads.ts',
    why: 'a sandbox merchant’s risk-reject scenario, read in the signing transaction',
  },
  {
    from: 'src/system/chain-health.service.ts',
    to: 'src/sandbox/scenario-reads.ts',
    why: 'a sandbox merchant’s chain-outage scenario, read where chain health is decided',
  },
  {
    from: 'src/ledger/treasury.service.ts',
    to: 'src/deposits/deposit-counts.ts',
    why: 'the treasury report sums deposits by status beside the ledger’s balances',
  },
];

const alt = (names) => `(${names.join('|')})`;
const escapeDots = (path) => path.replace(/[.]/g, '\\.');
/** Files outside any folder of src: the composition roots and the jobs. */
const ROOTS = '^jobs/|^src/[a-z-]+\\.ts$';
const REGISTRY = '^src/entities\\.ts$';
const TRANSPORT =
  '^src/(api|cli|metrics|embedded)/|^jobs/|^src/(container[a-z-]*|gateway|shutdown|orm|entities)\\.ts$';

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'core-imports-core-only',
      comment: 'domain, db, context, lib, logging, crypto, config and clock sit below everything.',
      severity: 'error',
      from: { path: CORE },
      to: { pathNot: [CORE, '^node_modules', 'src/embedded/paths\\.ts$'] },
    },
    {
      name: 'adapters-import-no-module',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { pathNot: [CORE, '^src/adapters/', '^node_modules', 'src/embedded/paths\\.ts$'] },
    },
    {
      name: 'shared-core-imports-below-only',
      severity: 'error',
      from: { path: `^src/${alt(SHARED_CORE)}/` },
      to: {
        pathNot: [
          CORE,
          `^src/${alt(SHARED_CORE)}/`,
          '^node_modules',
          ...ADAPTER_INTERFACES.map(escapeDots),
          ...MODULE_ALLOWLIST.map((edge) => escapeDots(edge.to)),
        ],
      },
    },
    {
      name: 'module-imports-below-only',
      comment: 'A module imports core, adapter interfaces, the shared core and itself.',
      severity: 'error',
      from: { path: `^src/${alt(MODULES)}/` },
      to: {
        pathNot: [
          CORE,
          `^src/${alt(SHARED_CORE)}/index\\.ts$`,
          '^src/$1/',
          '^node_modules',
          ...ADAPTER_INTERFACES.map(escapeDots),
          ...MODULE_ALLOWLIST.map((edge) => escapeDots(edge.to)),
        ],
      },
    },
    ...[...new Set(MODULE_ALLOWLIST.map((edge) => edge.to))].map((to) => ({
      name: 'cross-module-sql-only-where-allowed',
      comment: `${to} hands SQL to the importers named in MODULE_ALLOWLIST only.`,
      severity: 'error',
      from: {
        pathNot: [
          `^${to.replace(/[^/]+$/, '')}`,
          ...MODULE_ALLOWLIST.filter((edge) => edge.to === to).map((edge) => escapeDots(edge.from)),
        ],
      },
      to: { path: `^${escapeDots(to)}$` },
    })),
    {
      name: 'flows-below-transports',
      severity: 'error',
      from: { path: '^src/flows/' },
      to: { path: TRANSPORT },
    },
    {
      name: 'read-models-below-flows',
      comment: 'A read model imports modules through their index.ts, never a flow or a transport.',
      severity: 'error',
      from: { path: `^src/${alt(READ_MODELS)}/` },
      to: { path: [TRANSPORT, '^src/flows/'] },
    },
    {
      name: 'modules-through-their-index',
      comment: 'From another folder, a module is its index.ts: views, types and entry points.',
      severity: 'error',
      from: { path: '^src/([a-z-]+)/' },
      to: {
        path: `^src/${alt([...MODULES, ...SHARED_CORE, ...READ_MODELS])}/(?!index\\.ts$)`,
        pathNot: ['^src/$1/', ...MODULE_ALLOWLIST.map((edge) => escapeDots(edge.to))],
      },
    },
    {
      name: 'modules-through-their-index-from-roots',
      severity: 'error',
      from: { path: ROOTS, pathNot: REGISTRY },
      to: { path: `^src/${alt([...MODULES, ...SHARED_CORE, ...READ_MODELS])}/(?!index\\.ts$)` },
    },
    {
      name: 'entities-stay-in-their-module',
      comment: 'Only the ORM registry (src/entities.ts) imports an entity from outside its module.',
      severity: 'error',
      from: { path: '^src/([a-z-]+)/' },
      to: { path: '\\.entity\\.ts$', pathNot: ['^src/$1/'] },
    },
    {
      name: 'entities-stay-in-their-module-from-roots',
      severity: 'error',
      from: { path: ROOTS, pathNot: REGISTRY },
      to: { path: '\\.entity\\.ts$' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/db/migrations/' },
    includeOnly: '^(src|jobs)/',
  },
};
