import { Dec, dec } from '../../../domain/money';
import { SourceProblem } from './market-price-source';

/** Price answers are a few KB (Coinbase's rate list is the largest); more is not a price. */
const MAX_BODY_BYTES = 256 * 1024;

/**
 * GETs a public JSON endpoint. Every failure is a `SourceProblem` naming what went wrong
 * (timed out, unreachable, an HTTP status, too large, not JSON); `signal` carries the timeout.
 */
export async function getJson(
  url: string,
  signal: AbortSignal,
  headers: Record<string, string> = {},
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { signal, headers: { accept: 'application/json', ...headers } });
  } catch (error) {
    if (signal.aborted) throw new SourceProblem('no answer before the timeout');
    throw new SourceProblem(`unreachable (${causeOf(error)})`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new SourceProblem(`answered HTTP ${response.status}`);
  }
  const text = await readCapped(response, signal);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SourceProblem('answered a body that is not JSON');
  }
}

async function readCapped(response: Response, signal: AbortSignal): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel().catch(() => undefined);
        throw new SourceProblem(`answered more than ${MAX_BODY_BYTES} bytes`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof SourceProblem) throw error;
    if (signal.aborted) throw new SourceProblem('no answer before the timeout');
    throw new SourceProblem(`answer cut off (${causeOf(error)})`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}

/** A JSON object at `path` (for messages), or a problem. */
export function objectField(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SourceProblem(`${path} is not an object`);
  }
  return value as Record<string, unknown>;
}

const DECIMAL = /^(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/;

/**
 * A price field, exactly: a decimal string as written, or a JSON number through its string form
 * (the shortest text that reads back as the same number; no float arithmetic). Exponents, signs
 * and anything else are refused.
 */
export function decimalField(value: unknown, path: string): Dec {
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'number' && Number.isFinite(value)
        ? String(value)
        : undefined;
  if (text === undefined || !DECIMAL.test(text)) {
    throw new SourceProblem(`${path} is not a plain decimal`);
  }
  return dec(text);
}

/** A Unix timestamp in whole seconds (or milliseconds with `unit`), as a Date. */
export function timestampField(value: unknown, path: string, unit: 's' | 'ms'): Date {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new SourceProblem(`${path} is not a Unix timestamp`);
  }
  return new Date(unit === 's' ? value * 1000 : value);
}

/**
 * The middle of two sides of a book. Order is not checked: Quidax's `buy`/`sell` are read as
 * bid/ask by convention only, and the middle is the same either way.
 */
export function midpoint(bid: Dec, ask: Dec, path: string): Dec {
  if (bid.lte(0) || ask.lte(0)) throw new SourceProblem(`${path} has no bid or no ask`);
  return bid.plus(ask).div(2);
}
