import { API_SCOPES, isApiScope, scopesAllow } from '../../src/domain/api-scopes';

describe('API key scopes', () => {
  it('are exactly the scopes of API.md', () => {
    expect([...API_SCOPES].sort()).toEqual(
      [
        'all',
        'rates:read',
        'onramps:read',
        'onramps:write',
        'deposits:read',
        'balance:read',
        'withdrawals:write',
        'webhooks:write',
        'sandbox:write',
      ].sort(),
    );
  });

  it('lets `all` do everything, key management included', () => {
    expect(scopesAllow(['all'], ['deposits:read'])).toBe(true);
    expect(scopesAllow(['all'], [])).toBe(true);
  });

  it('lets a restricted key do only what one of its scopes names', () => {
    expect(scopesAllow(['deposits:read'], ['deposits:read'])).toBe(true);
    expect(scopesAllow(['deposits:read'], ['balance:read', 'withdrawals:write'])).toBe(false);
    expect(scopesAllow(['withdrawals:write'], ['balance:read', 'withdrawals:write'])).toBe(true);
    expect(scopesAllow(['deposits:read', 'rates:read'], ['rates:read'])).toBe(true);
  });

  it('never lets a restricted key manage keys', () => {
    expect(scopesAllow([...API_SCOPES.filter((s) => s !== 'all')], [])).toBe(false);
  });

  it('grants the read of a resource with its write, and not the other way', () => {
    expect(scopesAllow(['onramps:write'], ['onramps:read'])).toBe(true);
    expect(scopesAllow(['onramps:read'], ['onramps:write'])).toBe(false);
  });

  it('recognises scope names exactly', () => {
    expect(isApiScope('deposits:read')).toBe(true);
    expect(isApiScope('Deposits:read')).toBe(false);
    expect(isApiScope('deposits:write')).toBe(false);
    expect(isApiScope(7)).toBe(false);
  });
});
