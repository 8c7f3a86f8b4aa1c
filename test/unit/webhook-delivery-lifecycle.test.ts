import {
  WEBHOOK_DELIVERY_LIFECYCLE,
  WEBHOOK_DELIVERY_STATUSES,
} from '../../src/domain/webhook-delivery-status';
import { moveWebhookDelivery } from '../../src/webhooks/webhook-delivery-transitions';
import { describeLifecycle } from '../support/lifecycle-table';

describeLifecycle(WEBHOOK_DELIVERY_LIFECYCLE, WEBHOOK_DELIVERY_STATUSES, [
  [null, 'PENDING'],
  ['PENDING', 'PENDING'],
  ['PENDING', 'SUCCEEDED'],
  ['PENDING', 'FAILED'],
]);

describe('moveWebhookDelivery: the one place a delivery status is written (SQL)', () => {
  it('starts a delivery PENDING and no other way', () => {
    expect(moveWebhookDelivery('PENDING', null).value).toBe("'PENDING'");
    expect(() => moveWebhookDelivery('SUCCEEDED', null)).toThrow(
      'webhook delivery cannot move from (new) to SUCCEEDED',
    );
  });

  it('moves only PENDING rows, one target or each row its own', () => {
    expect(moveWebhookDelivery('FAILED')).toMatchObject({
      set: "status = 'FAILED'",
      allowed: "status in ('PENDING')",
    });
    expect(moveWebhookDelivery({ column: 'i.status' }, 'd.status')).toEqual({
      set: 'status = i.status',
      value: 'i.status',
      allowed:
        "(d.status, i.status) in (('PENDING', 'PENDING'), ('PENDING', 'SUCCEEDED'), ('PENDING', 'FAILED'))",
    });
  });
});
