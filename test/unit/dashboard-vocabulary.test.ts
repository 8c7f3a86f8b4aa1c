import { EVENT_NAMES, SCOPES } from '../../dashboard/src/vocabulary';
import { WEBHOOK_EVENT_NAMES } from '../../src/domain/webhook-events';
import { API_SCOPES } from '../../src/domain/api-scopes';

describe("the dashboard's choices", () => {
  it('offers exactly the events an endpoint can subscribe to', () => {
    expect(EVENT_NAMES).toEqual([...WEBHOOK_EVENT_NAMES]);
  });

  it('offers exactly the restricted scopes (all is its own choice)', () => {
    expect(SCOPES).toEqual(API_SCOPES.filter((scope) => scope !== 'all'));
  });
});
