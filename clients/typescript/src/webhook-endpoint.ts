import { OnrampApiError } from './errors';
import type { ApiErrorBody } from './types';
import type { OnrampClient } from './client';

export interface WebhookEndpoint {
  url: string;
  /** The `whsec_...` secret to give `verifyWebhook`. */
  secret: string;
  enabled: boolean;
}

interface GraphQLAnswer {
  data?: { setWebhookEndpoint?: WebhookEndpoint } | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

/**
 * Points the merchant's webhooks at `url` and returns the endpoint with its signing secret.
 * The endpoint is managed over GraphQL (REST has no route for it), so this one call is not
 * generated from the OpenAPI document. GraphQL's UPPER_SNAKE codes come back in REST's lower
 * snake case, so an `OnrampApiError` reads the same whichever transport answered.
 */
export async function setWebhookEndpoint(
  client: OnrampClient,
  url: string,
): Promise<WebhookEndpoint> {
  const { baseUrl, secretKey } = client.options;
  const fetchImpl = client.options.fetch ?? fetch;
  const response = await fetchImpl(
    new Request(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation($url: String!) { setWebhookEndpoint(url: $url) { url secret enabled } }',
        variables: { url },
      }),
    }),
  );
  const answer = (await response.json()) as GraphQLAnswer;
  const endpoint = answer.data?.setWebhookEndpoint;
  if (endpoint && !answer.errors?.length) return endpoint;
  const first = answer.errors?.[0];
  const body = {
    error: {
      code: (first?.extensions?.code ?? 'INTERNAL_ERROR').toLowerCase(),
      message: first?.message ?? `HTTP ${response.status}`,
    },
  } as ApiErrorBody;
  throw new OnrampApiError(response.status, body, response.headers);
}
