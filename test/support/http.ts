import { request as httpRequest } from 'node:http';

/** A thin fetch wrapper for e2e tests: JSON in, status + headers + parsed body out. */
// Response bodies are whatever the server sent; tests assert on their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface HttpResponse<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function request<T = Json>(
  baseUrl: string,
  method: string,
  path: string,
  options: {
    key?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: T;
  try {
    parsed = JSON.parse(text) as T;
  } catch {
    parsed = text as unknown as T;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export async function graphql<T = Json>(
  baseUrl: string,
  key: string | undefined,
  query: string,
  variables?: Record<string, unknown>,
): Promise<
  HttpResponse<{ data?: T; errors?: Array<{ message: string; extensions?: { code?: string } }> }>
> {
  return request(baseUrl, 'POST', '/graphql', { key, body: { query, variables } });
}

/** Points the merchant's webhooks at `receiverUrl` (GraphQL `setWebhookEndpoint`); fails on errors. */
export async function setWebhookEndpoint(
  baseUrl: string,
  key: string,
  receiverUrl: string,
): Promise<void> {
  const set = await graphql(
    baseUrl,
    key,
    'mutation($u: String!) { setWebhookEndpoint(url: $u) { url } }',
    { u: receiverUrl },
  );
  if (set.body.errors !== undefined) {
    throw new Error(`setWebhookEndpoint answered ${JSON.stringify(set.body.errors)}`);
  }
}

/**
 * A request through node:http with the path exactly as given (fetch would re-encode it), from
 * `localAddress` when set (any 127.0.0.0/8 address is this machine on Linux).
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<HttpResponse> {
  const { hostname, port } = new URL(baseUrl);
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname, port, path, method, headers, localAddress: options.localAddress, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: Json = text;
          try {
            body = JSON.parse(text);
          } catch {
            // left as text for the caller to assert on
          }
          const out = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === 'string') out.set(name, value);
          }
          resolve({ status: res.statusCode!, headers: out, body, text });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
