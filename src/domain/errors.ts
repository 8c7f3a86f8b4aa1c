/**
 * One error vocabulary for both transports. REST answers `error.code` in lower snake case;
 * GraphQL answers `extensions.code` with the same name in UPPER_SNAKE case.
 */
export enum ErrorCode {
  MissingParameter = 'missing_parameter',
  InvalidParameter = 'invalid_parameter',
  Unauthorized = 'unauthorized',
  Forbidden = 'forbidden',
  MerchantFrozen = 'merchant_frozen',
  /** A restricted key used outside its scopes. */
  InsufficientScope = 'insufficient_scope',
  /** A key used from an address outside its `allowed_ips`. */
  IpNotAllowed = 'ip_not_allowed',
  /** A client secret used from a browser origin outside the merchant's `allowed_origins`. */
  OriginNotAllowed = 'origin_not_allowed',
  NotFound = 'not_found',
  IdempotencyConflict = 'idempotency_conflict',
  PayloadTooLarge = 'payload_too_large',
  RateNotFound = 'rate_not_found',
  RateExpired = 'rate_expired',
  InvalidAddress = 'invalid_address',
  InsufficientBalance = 'insufficient_balance',
  /** A withdrawal to an address not ACTIVE in the address book, when the merchant requires it. */
  AddressNotAllowed = 'address_not_allowed',
  /** An address on the sanctions list in force (OFAC SDN digital currency addresses). */
  AddressSanctioned = 'address_sanctioned',
  /** A per-merchant count limit, such as the eleventh webhook endpoint. */
  LimitExceeded = 'limit_exceeded',
  RateLimited = 'rate_limited',
  InternalError = 'internal_error',
  RateUnavailable = 'rate_unavailable',
  ServiceUnavailable = 'service_unavailable',
}

/** HTTP status of each code: the table in docs/api.md ("Errors"), in one place. */
export const httpStatusOf: Record<ErrorCode, number> = {
  [ErrorCode.MissingParameter]: 400,
  [ErrorCode.InvalidParameter]: 400,
  [ErrorCode.Unauthorized]: 401,
  [ErrorCode.Forbidden]: 403,
  [ErrorCode.MerchantFrozen]: 403,
  [ErrorCode.InsufficientScope]: 403,
  [ErrorCode.IpNotAllowed]: 403,
  [ErrorCode.OriginNotAllowed]: 403,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.IdempotencyConflict]: 409,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.RateNotFound]: 422,
  [ErrorCode.RateExpired]: 422,
  [ErrorCode.InvalidAddress]: 422,
  [ErrorCode.InsufficientBalance]: 422,
  [ErrorCode.AddressNotAllowed]: 422,
  [ErrorCode.AddressSanctioned]: 422,
  [ErrorCode.LimitExceeded]: 422,
  [ErrorCode.RateLimited]: 429,
  [ErrorCode.InternalError]: 500,
  [ErrorCode.RateUnavailable]: 503,
  [ErrorCode.ServiceUnavailable]: 503,
};

export function graphqlCodeOf(code: ErrorCode): string {
  return code.toUpperCase();
}

/** An expected failure with a code the client can act on. Domain services throw only these. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: string,
    /**
     * The HTTP status, where the contract gives this case another than the code's usual one
     * (422 `missing_parameter` when no bank provider can serve an onramp's customer).
     */
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: string };
}

export function errorBody(code: ErrorCode, message: string, details?: string): ErrorBody {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

export const missingParameter = (name: string) =>
  new DomainError(ErrorCode.MissingParameter, `Missing required parameter: ${name}`);

export const invalidParameter = (name: string, why: string) =>
  new DomainError(ErrorCode.InvalidParameter, `Invalid parameter ${name}: ${why}`);
