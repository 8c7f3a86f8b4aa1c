import createClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import type { paths } from './schema';

export interface OnrampClientOptions {
  /** Where the gateway answers, e.g. `http://localhost:3000` (no `/v1`: paths carry it). */
  baseUrl: string;
  /** The merchant's secret key (`sk_test_...` or `sk_live_...`), sent as the bearer. */
  secretKey: string;
  /** Another fetch (a proxy agent, a test double); the global one otherwise. */
  fetch?: (input: Request) => Promise<Response>;
}

/** The `Idempotency-Key` of a POST: a retry with the same key replays the first answer. */
export interface IdempotencyOption {
  idempotencyKey?: string;
}

type PostPath = ClientPathsWithMethod<Client<paths>, 'post'>;
type PostInit<Path extends PostPath> = MaybeOptionalInit<paths[Path], 'post'>;

/**
 * The REST API, typed from the OpenAPI document: `GET`/`POST` take a path of the document and
 * resolve to `{ data }` or `{ error }` (the API's error body), never throwing for an HTTP error.
 */
export interface OnrampClient {
  GET: Client<paths>['GET'];
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
  const api = createClient<paths>({
    baseUrl,
    headers: { authorization: `Bearer ${options.secretKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return {
    GET: api.GET,
    POST(path, init) {
      const { idempotencyKey, ...rest } = init as IdempotencyOption & {
        headers?: ConstructorParameters<typeof Headers>[0];
      };
      // The key is a header of this one request, beside any the caller passes.
      const headers = new Headers(rest.headers);
      if (idempotencyKey) headers.set('idempotency-key', idempotencyKey);
      // openapi-fetch's types cannot follow the generic init through the spread, hence the cast.
      return api.POST(path, { ...rest, headers } as never);
    },
    api,
    options: { ...options, baseUrl },
  };
}
