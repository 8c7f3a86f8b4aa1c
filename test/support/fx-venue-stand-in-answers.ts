import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StandInQuote, StandInTransfer } from './fx-venue-stand-in';

/** The Busha stand-in's answer bodies, in the shapes of Busha's documented examples. */
const PROFILE = 'BUS_standin0000000000001';

export function quoteView(quote: StandInQuote) {
  return {
    id: quote.id,
    profile_id: PROFILE,
    source_currency: quote.source_currency,
    target_currency: quote.target_currency,
    source_amount: quote.source_amount,
    target_amount: quote.target_amount,
    rate: {
      product: `${quote.target_currency}NGN`,
      rate: quote.rate,
      side: 'buy',
      type: 'FIXED',
      source_currency: quote.source_currency,
      target_currency: quote.target_currency,
    },
    fees: [],
  };
}

export function transferView(transfer: StandInTransfer) {
  return {
    ...transfer,
    profile_id: PROFILE,
    description: `Bought ${transfer.target_currency}`,
    sub_description: 'With Naira',
    trade: 'buy',
    fees: [],
    pay_in: { type: 'balance' },
    pay_out: { type: 'balance' },
    reference: transfer.id,
    updated_at: transfer.created_at,
  };
}

export function token(): string {
  return randomBytes(9)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, 'x');
}

export function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 65_536) chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(size > 65_536 ? undefined : Buffer.concat(chunks).toString('utf8')),
    );
  });
}

export function ok(res: ServerResponse, status: number, message: string, data: unknown): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ status: 'success', message, data }));
}

export function error(res: ServerResponse, status: number, name: string, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ status: 'error', message, error: { name, message } }));
}

/** The documented schema error body (docs.busha.io API reference, "Error Handling"). */
export function schemaError(res: ServerResponse): void {
  res.writeHead(400, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      error: { name: 'bad_request', message: 'Invalid input data' },
      schema: {
        reason: 'The request body does not meet the schema requirements of the specification',
        fix: 'Ensure that the object being submitted, matches the schema correctly',
      },
    }),
  );
}
