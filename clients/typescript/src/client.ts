import createClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import type { paths } from './schema';
import { retryingFetch, type RetryOptions } from './retry';

export interface OnrampClientOptions {
  /** Where the gateway answers, e.g. `http://localhost:3000` (no `/v1`: paths carry it). */
  baseUrl: string;
  /** The merchant's secret key (`sk_test_...` or `sk_live_...`), sent as the bearer. */
  secretKey: string;
  /** Another fetch (a proxy agent, a test double); the global one otherwise. */
  fetch?: (input: Request) => Promise<Response>;
  /** Retries of unanswered requests and of 429/503 with Retry-After (src/retry.ts); `false`: none. */
  retry?: RetryOptions | false;
}

/**
 * The `Idempotency-Key` of a POST: a retry with the same key replays the first answer. Without
 * one the client makes a fresh key per call, so its own retries of that call are safe too.
 */
export interface IdempotencyOption {
  idempotencyKey?: string;
}

type PostPath = ClientPathsWithMethod<Client<paths>, 'post'>;
type PostInit<Path extends PostPath> = MaybeOptionalInit<paths[Path], 'post'>;

/**
 * The REST API, typed from the OpenAPI document: `GET`/`POST`/`PATCH`/`DELETE` take a path of
 * the document and
 * resolve to `{ data }` or `{ error }` (the API's error body), never throwing for an HTTP error.
 */
export interface OnrampClient {
  GET: Client<paths>['GET'];
  PATCH: Client<paths>['PATCH'];
  DELETE: Client<paths>['DELETE'];
  POST<Path extends PostPath, Init extends PostInit<Path>>(
    path: Path,
    init: Init & IdempotencyOption,
  ): Promise<FetchResponse<paths[Path]['post'], Init, `${string}/${string}`>>;
  /** The openapi-fetch client underneath (middleware, other methods). */
  readonly api: Client<paths>;
  readonly options: Readonly<OnrampClientOptions>;
}

export function createOnrampClient(options: OnrampClientOptions): OnrampClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchOnce = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retries = options.retry !== false;
  const api = createClient<paths>({
    baseUrl,
    headers: { authorization: `Bearer ${options.secretKey}` },
    fetch: retries ? retryingFetch(fetchOnce, options.retry || {}) : fetchOnce,
  });
  return {
    GET: api.GET,
    PATCH: api.PATCH,
    DELETE: api.DELETE,
    POST(path, init) {
      const { idempotencyKey, ...rest } = init as IdempotencyOption & {
        headers?: ConstructorParameters<typeof Headers>[0];
      };
      // The key is a header of this one request, beside any the caller passes.
      const headers = new Headers(rest.headers);
      if (idempotencyKey) headers.set('idempotency-key', idempotencyKey);
      else if (retries && !headers.has('idempotency-key')) {
        headers.set('idempotency-key', `client-${globalThis.crypto.randomUUID()}`);
      }
      // openapi-fetch's types cannot follow the generic init through the spread, hence the cast.
      return api.POST(path, { ...rest, headers } as never);
    },
    api,
    options: { ...options, baseUrl },
  };
}
