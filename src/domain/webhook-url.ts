import { invalidParameter } from './errors';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * A merchant's webhook URL, as given: absolute http(s), no credentials, no fragment. Production
 * requires https (the body carries payment data). Whether its host resolves to a public
 * address is checked separately (`isPublicAddress`), at configuration and at every attempt,
 * in every environment unless the operator sets WEBHOOK_ALLOW_PRIVATE=true.
 */
export function parseWebhookUrl(value: string, options: { requireHttps: boolean }): URL {
  if (value.length === 0) throw invalidParameter('url', 'must not be empty');
  if (value.length > MAX_WEBHOOK_URL_LENGTH) {
    throw invalidParameter('url', `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidParameter('url', 'must be an absolute URL, e.g. https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidParameter('url', 'must use https (or http in the sandbox)');
  }
  if (options.requireHttps && url.protocol !== 'https:') {
    throw invalidParameter('url', 'must use https in production');
  }
  if (url.username || url.password) {
    throw invalidParameter('url', 'must not contain credentials');
  }
  if (url.hash) throw invalidParameter('url', 'must not contain a fragment');
  if (url.hostname === '') throw invalidParameter('url', 'must name a host');
  return url;
}

/** Judged by `./public-address`; exported here, where the rest of webhook URL policy lives. */
export { isPublicAddress } from './public-address';
