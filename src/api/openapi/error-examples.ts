import { ErrorCode, httpStatusOf } from '../../domain/errors';

/** A typical message per code: a Record over the enum, so a new code cannot go undocumented. */
const MESSAGES: Record<ErrorCode, string> = {
  [ErrorCode.MissingParameter]: 'Missing required parameter: from',
  [ErrorCode.InvalidParameter]: 'Invalid parameter per_page: must be at most 100',
  [ErrorCode.Unauthorized]: 'Authentication required',
  [ErrorCode.Forbidden]: 'This credential may not do that',
  [ErrorCode.MerchantFrozen]: 'This merchant account is frozen; contact support',
  [ErrorCode.InsufficientScope]: 'This API key lacks the scope deposits:read',
  [ErrorCode.IpNotAllowed]: 'This API key may not be used from 203.0.113.7',
  [ErrorCode.OriginNotAllowed]:
    "https://shop.example.com is not in this merchant's allowed_origins; add it in the settings",
  [ErrorCode.NotFound]: 'Not found',
  [ErrorCode.IdempotencyConflict]: 'Idempotency-Key was used with a different request',
  [ErrorCode.PayloadTooLarge]: 'Request body is larger than 65536 bytes',
  [ErrorCode.RateNotFound]: 'Unknown rate_id',
  [ErrorCode.RateExpired]: 'The rate has expired; fetch a new one',
  [ErrorCode.InvalidAddress]: 'destination_address is not a valid address for BASE',
  [ErrorCode.InsufficientBalance]: 'Amount exceeds usd_available',
  [ErrorCode.AddressNotAllowed]:
    'destination_address is not ACTIVE in your withdrawal address book',
  [ErrorCode.AddressSanctioned]:
    'destination_address is on the sanctions list in force (OFAC SDN, list of 2024-09-27)',
  [ErrorCode.LimitExceeded]: 'At most 10 webhook endpoints per merchant',
  [ErrorCode.RateLimited]: 'Rate limit of 100 requests per minute exceeded; retry in 42 seconds',
  [ErrorCode.InternalError]: 'Internal error; quote the request id',
  [ErrorCode.RateUnavailable]: 'No valid rate is available; retry in a few minutes',
  [ErrorCode.ServiceUnavailable]: 'The service is unavailable; retry',
};

/** Codes only some operations answer (by operationId); every other code can come from any. */
const ONLY_FROM: Partial<Record<ErrorCode, string[]>> = {
  [ErrorCode.MerchantFrozen]: ['createOnramp', 'createWithdrawal'],
  [ErrorCode.RateNotFound]: ['createOnramp'],
  [ErrorCode.RateExpired]: ['createOnramp'],
  [ErrorCode.InvalidAddress]: ['createOnramp', 'createWithdrawal', 'createWithdrawalAddress'],
  [ErrorCode.InsufficientBalance]: ['createWithdrawal'],
  [ErrorCode.AddressNotAllowed]: ['createWithdrawal'],
  [ErrorCode.AddressSanctioned]: ['createOnramp', 'createWithdrawal', 'createWithdrawalAddress'],
  // The operations that create a counted thing list themselves here (webhook endpoints...).
  [ErrorCode.LimitExceeded]: ['createApiKey', 'createWebhookEndpoint', 'createWithdrawalAddress'],
  [ErrorCode.RateUnavailable]: ['getRate', 'createOnramp'],
  // Only the routes a client secret may call.
  [ErrorCode.OriginNotAllowed]: ['getOnramp', 'listDeposits', 'getDeposit'],
};

/** The codes a status can carry for an operation, from the one status table (`httpStatusOf`). */
export function codesOfStatus(status: number, operationId: string): ErrorCode[] {
  return Object.values(ErrorCode).filter(
    (code) => httpStatusOf[code] === status && (ONLY_FROM[code]?.includes(operationId) ?? true),
  );
}

/** A response description naming the codes, e.g. "Error: `rate_not_found`, ...". */
export function errorDescription(status: number, operationId: string): string {
  const codes = codesOfStatus(status, operationId);
  return codes.length > 0 ? `Error: ${codes.map((c) => `\`${c}\``).join(', ')}` : 'Error';
}

/** Named examples, one per code of the status. */
export function errorExamples(
  status: number,
  operationId: string,
): Record<string, { value: unknown }> {
  return Object.fromEntries(
    codesOfStatus(status, operationId).map((code) => [
      code,
      { value: { error: { code, message: MESSAGES[code] } } },
    ]),
  );
}
