import { ErrorCode, errorBody, graphqlCodeOf, httpStatusOf } from '../../src/domain/errors';

/** The status table of API.md, copied independently. */
const API_MD_STATUSES: Record<string, number> = {
  missing_parameter: 400,
  invalid_parameter: 400,
  unauthorized: 401,
  forbidden: 403,
  merchant_frozen: 403,
  insufficient_scope: 403,
  ip_not_allowed: 403,
  origin_not_allowed: 403,
  not_found: 404,
  idempotency_conflict: 409,
  payload_too_large: 413,
  rate_not_found: 422,
  rate_expired: 422,
  invalid_address: 422,
  insufficient_balance: 422,
  address_not_allowed: 422,
  address_sanctioned: 422,
  limit_exceeded: 422,
  rate_limited: 429,
  internal_error: 500,
  rate_unavailable: 503,
  service_unavailable: 503,
};

describe('error codes', () => {
  it('has exactly the codes of API.md', () => {
    expect([...Object.values(ErrorCode)].sort()).toEqual(Object.keys(API_MD_STATUSES).sort());
  });

  it.each(Object.entries(API_MD_STATUSES))('%s maps to HTTP %i', (code, status) => {
    expect(httpStatusOf[code as ErrorCode]).toBe(status);
  });

  it('gives every code an HTTP error status', () => {
    for (const code of Object.values(ErrorCode)) {
      expect(httpStatusOf[code]).toBeGreaterThanOrEqual(400);
      expect(httpStatusOf[code]).toBeLessThan(600);
    }
  });

  it('gives GraphQL codes in UPPER_SNAKE case', () => {
    expect(graphqlCodeOf(ErrorCode.MissingParameter)).toBe('MISSING_PARAMETER');
    expect(graphqlCodeOf(ErrorCode.RateUnavailable)).toBe('RATE_UNAVAILABLE');
    for (const code of Object.values(ErrorCode)) {
      expect(graphqlCodeOf(code)).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
      expect(graphqlCodeOf(code).toLowerCase()).toBe(code);
    }
  });

  it('builds the REST error body, omitting absent details', () => {
    expect(errorBody(ErrorCode.NotFound, 'Not found')).toEqual({
      error: { code: 'not_found', message: 'Not found' },
    });
    expect(errorBody(ErrorCode.NotFound, 'Not found', 'x')).toEqual({
      error: { code: 'not_found', message: 'Not found', details: 'x' },
    });
  });
});
