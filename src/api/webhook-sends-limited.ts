import { HeaderMap } from '@apollo/server';
import type { FastifyReply } from 'fastify';
import { WebhookSendsLimited } from '../webhooks';

/**
 * REST: a test or replay past the merchant's budget gets `Retry-After` with the time left in
 * its hour; the error handler answers the 429 `rate_limited` body as for every refusal.
 */
export async function restWebhookSend<T>(reply: FastifyReply, send: Promise<T>): Promise<T> {
  try {
    return await send;
  } catch (error) {
    if (error instanceof WebhookSendsLimited) {
      void reply.header('retry-after', String(error.retryAfterSeconds));
    }
    throw error;
  }
}

/**
 * GraphQL: the same refusal answers HTTP 429 with `Retry-After`, as the per-key limit does
 * (`RATE_LIMITED`). Apollo takes a thrown error's `extensions.http` as the answer's status and
 * headers (graphql-js copies the original error's `extensions`), and the error formatter
 * answers its code.
 */
export async function graphqlWebhookSend<T>(send: Promise<T>): Promise<T> {
  try {
    return await send;
  } catch (error) {
    if (error instanceof WebhookSendsLimited) {
      const headers = new HeaderMap([['retry-after', String(error.retryAfterSeconds)]]);
      Object.assign(error, { extensions: { http: { status: 429, headers } } });
    }
    throw error;
  }
}
