import { moveFxOrder } from '../../src/adapters/fx/busha/fx-order-store';
import { FX_ORDER_LIFECYCLE, FX_ORDER_STATUSES } from '../../src/domain/fx-order-lifecycle';
import { describeLifecycle } from '../support/lifecycle-table';

describeLifecycle(FX_ORDER_LIFECYCLE, FX_ORDER_STATUSES, [
  [null, 'NEW'],
  ['NEW', 'QUOTED'],
  ['NEW', 'EXECUTING'],
  ['QUOTED', 'EXECUTING'],
  ['EXECUTING', 'EXECUTING'],
  ['EXECUTING', 'NEW'],
  ['EXECUTING', 'FILLED'],
  ['EXECUTING', 'CANCELLED'],
  ['CANCELLED', 'QUOTED'],
  ['CANCELLED', 'EXECUTING'],
]);

describe('moveFxOrder: the one place an FX order status is written (SQL)', () => {
  it('never writes over a fill', () => {
    expect(moveFxOrder('NEW', null).value).toBe("'NEW'");
    expect(moveFxOrder('EXECUTING').allowed).toBe(
      "status in ('NEW', 'QUOTED', 'EXECUTING', 'CANCELLED')",
    );
    for (const to of FX_ORDER_STATUSES.filter((s) => s !== 'NEW' && s !== 'FILLED')) {
      expect(moveFxOrder(to).allowed).not.toContain("'FILLED'");
    }
    expect(moveFxOrder('FILLED').allowed).toBe("status in ('EXECUTING')");
  });
});
