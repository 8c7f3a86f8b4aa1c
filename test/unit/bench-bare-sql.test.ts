import type { EntityManager } from '@mikro-orm/postgresql';
import { DEPOSIT_SQL, KEY_SQL } from '../../bench/lib/bare-deposit-sql';
import { ManualClock } from '../../src/clock';
import { merchantContext } from '../../src/context/request-context';
import { KeyEnvironment } from '../../src/domain/key-environment';
import { DepositQueryService } from '../../src/deposits/deposit-query.service';
import { API_KEY_SQL } from '../../src/merchants/auth.service';

/**
 * The reads benchmark's baseline (bench/lib/bare-deposit-server.ts) must run the gateway's own
 * statements, or its ratios compare different work: a column added to the deposit view or the
 * key lookup fails here until the bare handler reads it too. The deposit read's text is taken
 * from the read service itself (its `execute` only records the statement).
 */
describe('the bare read handler runs the gateway statements', () => {
  it('the API key lookup', () => {
    expect(KEY_SQL).toBe(API_KEY_SQL);
  });

  it("a secret key's deposit read", async () => {
    const statements: string[] = [];
    const recorder = {
      // In a transaction, reads go through `execute` with the statement as written.
      isInTransaction: () => true,
      execute: async (sql: string) => {
        statements.push(sql);
        return [];
      },
    } as unknown as EntityManager;
    const ctx = merchantContext(
      { kind: 'secret_key', merchantId: 'mer_1', keyId: 'key_1', scopes: ['all'] },
      { environment: KeyEnvironment.Sandbox, clock: new ManualClock() },
    );
    await new DepositQueryService().findView(recorder, ctx, 'dep_1');
    expect(statements).toEqual([DEPOSIT_SQL]);
  });
});
