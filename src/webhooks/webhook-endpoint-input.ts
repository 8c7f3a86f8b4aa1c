import { invalidParameter } from '../domain/errors';
import { parseEnabledEvents } from '../domain/webhook-events';
import { TEXT_ARRAY, textArray } from '../db/text-array';
import { parseWebhookUrl } from '../domain/webhook-url';

export interface EndpointInput {
  url: unknown;
  enabledEvents: unknown;
  description?: unknown;
}

export interface EndpointPatch {
  url?: unknown;
  enabledEvents?: unknown;
  description?: unknown;
  status?: unknown;
}

const DISABLED_BY_MERCHANT = 'Disabled by the merchant';

/** The `set` assignments of an endpoint PATCH (only the fields given), checked. */
export async function patchAssignments(
  patch: EndpointPatch,
  checkUrl: (url: unknown) => Promise<string>,
): Promise<{ sets: string[]; params: unknown[] }> {
  const sets: string[] = [];
  const params: unknown[] = [];
  if (patch.url !== undefined) {
    sets.push('url = ?');
    params.push(await checkUrl(patch.url));
  }
  if (patch.enabledEvents !== undefined) {
    sets.push(`enabled_events = ${TEXT_ARRAY}`);
    params.push(textArray(checkedEvents(patch.enabledEvents)));
  }
  const description = checkedDescription(patch.description);
  if (description !== undefined) {
    sets.push('description = ?');
    params.push(description);
  }
  if (patch.status !== undefined) {
    if (patch.status !== 'ENABLED' && patch.status !== 'DISABLED') {
      throw invalidParameter('status', 'must be ENABLED or DISABLED');
    }
    sets.push('enabled = ?', 'disabled_reason = ?');
    params.push(
      patch.status === 'ENABLED',
      patch.status === 'ENABLED' ? null : DISABLED_BY_MERCHANT,
    );
  }
  return { sets, params };
}

export function checkedEvents(value: unknown): string[] {
  const parsed = parseEnabledEvents(value);
  if ('error' in parsed) throw invalidParameter('enabled_events', parsed.error);
  return parsed.events;
}

/** undefined: not given (unchanged); null or '': none. */
export function checkedDescription(value: unknown): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  if (typeof value !== 'string' || value.length > 500) {
    throw invalidParameter('description', 'must be a string of at most 500 characters');
  }
  return value;
}

/** A webhook URL as given, checked (https in production; public hosts unless allowed). */
export async function checkedUrl(
  options: Pick<WebhookEndpointOptions, 'production' | 'allowPrivate' | 'resolvesToPublicOnly'>,
  url: unknown,
): Promise<string> {
  if (typeof url !== 'string') throw invalidParameter('url', 'must be a string');
  const parsed = parseWebhookUrl(url.trim(), { requireHttps: options.production });
  if (!options.allowPrivate && !(await options.resolvesToPublicOnly(parsed.hostname))) {
    throw invalidParameter(
      'url',
      'must resolve to a public address (not loopback, private, link-local or reserved)',
    );
  }
  return parsed.toString();
}

export interface WebhookEndpointOptions {
  /** Production: https only. */
  production: boolean;
  /**
   * WEBHOOK_ALLOW_PRIVATE: the operator lets URLs point at loopback and private networks (local
   * receivers). Otherwise, in every environment, the host must resolve to public addresses only.
   */
  allowPrivate: boolean;
  rotationSeconds: number;
  /** DNS check of a host (injected so tests need no resolver). */
  resolvesToPublicOnly: (hostname: string) => Promise<boolean>;
}
