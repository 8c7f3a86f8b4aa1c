import { servedSchema } from '../fuzz/support/graphql-documents';
import { scopeViolations } from '../fuzz/support/scope-oracle';

/** The fuzzers' scope oracle finds an out-of-scope value at any depth, however it was asked. */
describe('fuzz oracle: scopes at every depth', () => {
  const schema = servedSchema();
  const balance = ['balance:read'];
  const rules = (query: string, data: unknown, scopes = balance, operationName?: string) =>
    scopeViolations(schema, query, operationName, data, scopes).map((v) => v.detail);

  it('flags the webhook endpoint under the merchant, through aliases and fragments', () => {
    const leaked = { url: 'https://x.example' };
    expect(
      rules('{ merchant { webhookEndpoint { url } } }', { merchant: { webhookEndpoint: leaked } }),
    ).toEqual(['merchant.webhookEndpoint: WebhookEndpoint shown to a key with balance:read']);
    expect(
      rules(
        'query Q { m: merchant { ...F } } fragment F on Merchant { h: webhookEndpoint { url } }',
        {
          m: { h: leaked },
        },
      ),
    ).toHaveLength(1);
    expect(
      rules('{ merchant { ... on Merchant { webhookEndpoint { url } } } }', {
        merchant: { webhookEndpoint: leaked },
      }),
    ).toHaveLength(1);
  });

  it('accepts what the key may read, and a refused field left null', () => {
    expect(
      rules('{ merchant { name balance { usdAvailable } webhookEndpoint { url } } }', {
        merchant: { name: 'A', balance: { usdAvailable: '1' }, webhookEndpoint: null },
      }),
    ).toEqual([]);
    expect(
      rules(
        'query A { deposits { edges { node { id payer { bankCode } } } pageInfo { hasNextPage } } }',
        { deposits: { edges: [{ node: { id: 'd', payer: { bankCode: '1' } } }], pageInfo: {} } },
        ['deposits:read'],
        'A',
      ),
    ).toEqual([]);
    expect(rules('{ deposits { edges { node { id } } } }', { deposits: { edges: [] } })).toEqual([
      'deposits: DepositConnection shown to a key with balance:read',
    ]);
  });
});
