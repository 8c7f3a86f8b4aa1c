import type { EntityManager } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { KeyEnvironment } from '../../src/domain/key-environment';
import {
  merchantContext,
  operatorContext,
  type RequestContext,
} from '../../src/context/request-context';
import { listingOnramp, merchantWide, readScopeOf } from '../../src/context/read-scope';
import type { DepositQueryService } from '../../src/deposits/deposit-query.service';
import type { OnrampService } from '../../src/onramps/onramp.service';
import { DomainError, ErrorCode } from '../../src/domain/errors';

const deployment = { environment: KeyEnvironment.Sandbox, clock: new ManualClock() };
const secretKey = merchantContext(
  { kind: 'secret_key', merchantId: 'mer_1', keyId: 'key_1', scopes: ['all'] },
  deployment,
);
const clientSecret = merchantContext(
  { kind: 'client_secret', merchantId: 'mer_1', onrampId: 'onr_1' },
  deployment,
);

/**
 * Never called: `tsc --noEmit -p .` (the project's type check) fails if any of these compiles,
 * i.e. if a read service could be called without a context built by the transports.
 */
export function readsWithoutAContextDoNotCompile(
  em: EntityManager,
  deposits: DepositQueryService,
  onramps: OnrampService,
) {
  // @ts-expect-error a bare merchant id is not a context
  void deposits.findView(em, 'mer_1', 'dep_1');
  // @ts-expect-error a bare merchant id is not a context
  void deposits.getView(em, 'mer_1', 'dep_1');
  // @ts-expect-error a bare merchant id is not a context
  void deposits.list(em, 'mer_1', {}, { offset: 0, limit: 1 });
  // @ts-expect-error a bare merchant id is not a context
  void deposits.listAfter(em, 'mer_1', {}, { first: 1, after: null });
  // @ts-expect-error a bare merchant id is not a context
  void deposits.statusHistories(em, 'mer_1', ['dep_1']);
  // @ts-expect-error a bare merchant id is not a context
  void deposits.settledVolume(em, 'mer_1', 7);
  // @ts-expect-error a bare merchant id is not a context
  void deposits.watch(em, 'mer_1', {});
  // @ts-expect-error a bare merchant id is not a context
  void onramps.find(em, 'mer_1', 'onr_1');
  // @ts-expect-error a bare merchant id is not a context
  void onramps.get(em, 'mer_1', 'onr_1');
  // @ts-expect-error a bare merchant id is not a context
  void onramps.list(em, 'mer_1', { offset: 0, limit: 1 });
  // @ts-expect-error a bare merchant id is not a context
  void onramps.listAfter(em, 'mer_1', null, 1);
  const handMade = {
    kind: 'merchant' as const,
    principal: {
      kind: 'secret_key' as const,
      merchantId: 'mer_2',
      keyId: 'key_2',
      scopes: ['all'],
    },
    authentication: 'api_key' as const,
    merchantId: 'mer_2',
    environment: KeyEnvironment.Sandbox,
    clock: new ManualClock(),
  };
  // @ts-expect-error only the builders make a context: a look-alike object is refused
  void deposits.findView(em, handMade, 'dep_1');
}

function code(run: () => unknown): ErrorCode | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof DomainError ? error.code : undefined;
  }
}

describe('request context', () => {
  it('carries the principal, merchant, environment and clock', () => {
    expect(secretKey).toMatchObject({
      kind: 'merchant',
      authentication: 'api_key',
      merchantId: 'mer_1',
      environment: KeyEnvironment.Sandbox,
      clock: deployment.clock,
    });
    expect(clientSecret.authentication).toBe('client_secret');
    const session = merchantContext(secretKey.principal, deployment, 'dashboard_session');
    expect(session.authentication).toBe('dashboard_session');
    expect(Object.isFrozen(secretKey)).toBe(true);
  });

  it('scopes a client secret to its onramp, a secret key to its merchant, an operator to all', () => {
    expect(readScopeOf(clientSecret)).toEqual({ merchantId: 'mer_1', onrampId: 'onr_1' });
    expect(readScopeOf(secretKey)).toEqual({ merchantId: 'mer_1', onrampId: null });
    const operator: RequestContext = operatorContext('ops@example.com', deployment);
    expect(readScopeOf(operator)).toEqual({ merchantId: null, onrampId: null });
  });

  it("a listing's onramp: implied for a client secret, another one forbidden", () => {
    expect(listingOnramp(readScopeOf(clientSecret), undefined)).toBe('onr_1');
    expect(listingOnramp(readScopeOf(clientSecret), '')).toBe('onr_1');
    expect(listingOnramp(readScopeOf(clientSecret), 'onr_1')).toBe('onr_1');
    expect(code(() => listingOnramp(readScopeOf(clientSecret), 'onr_2'))).toBe(ErrorCode.Forbidden);
    expect(listingOnramp(readScopeOf(secretKey), undefined)).toBeUndefined();
    expect(listingOnramp(readScopeOf(secretKey), 'onr_2')).toBe('onr_2');
  });

  it('merchant-wide reads: a secret key only', () => {
    expect(merchantWide(secretKey)).toBe('mer_1');
    expect(code(() => merchantWide(clientSecret))).toBe(ErrorCode.Forbidden);
  });
});
