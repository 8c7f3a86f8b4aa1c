import { z } from 'zod';

/**
 * Settings of the read path's in-memory copies (issue 23), spread into `configSchema`.
 */
export const readPathConfig = {
  /**
   * How long a gateway may answer from its in-memory copy of an API key lookup, in ms. A
   * revocation reaches every gateway through NOTIFY at once; this bounds how long a revoked
   * key could still pass if that notice were lost (at most 1000, so it is under a second).
   * 0: every request reads the key from the database.
   */
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(1000).default(500),
};
