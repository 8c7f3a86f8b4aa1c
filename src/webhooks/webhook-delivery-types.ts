import type { OutboxEvent } from '../events';

export interface EndpointRow {
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  enabled: boolean;
}

/** A delivery this runner holds a lease on, with what it needs to make the attempt. */
export interface ClaimedDelivery {
  id: string;
  merchantId: string;
  /** The endpoint it is owed to (null only for a delivery older than several endpoints). */
  endpointId: string | null;
  attemptCount: number;
  firstAttemptAt: Date | null;
  leaseToken: string;
  event: OutboxEvent;
  /** Null when the endpoint was deleted. */
  endpoint: EndpointRow | null;
}

export type AttemptOutcome =
  | { kind: 'succeeded'; statusCode: number }
  | { kind: 'retry'; at: Date; statusCode: number | null; error: string | null }
  | { kind: 'failed'; statusCode: number | null; error: string | null }
  | { kind: 'endpoint_gone'; statusCode: 410 }
  | { kind: 'no_endpoint' }
  /** Another runner took the delivery over (this runner's lease expired): nothing recorded. */
  | { kind: 'lease_lost' };
