import type { RequestContext } from '../context/request-context';
import { merchantWide } from '../context/read-scope';
import { missingParameter } from '../domain/errors';

/**
 * The one merchant a report covers: the caller's (a secret key; a client secret is 403), or
 * the one an operator narrowed to (`--merchant`): a report never mixes merchants.
 */
export function reportMerchantOf(ctx: RequestContext): string {
  if (ctx.kind === 'operator') {
    if (ctx.merchantId === null) throw missingParameter('merchant');
    return ctx.merchantId;
  }
  return merchantWide(ctx);
}

/** A piece of a report as it streams: CSV text and the number of records (rows) it holds. */
export interface ReportChunk {
  text: string;
  rows: number;
}

/** The text of a report's chunks, for a byte stream (HTTP, a file). */
export async function* reportText(chunks: AsyncIterable<ReportChunk>): AsyncGenerator<string> {
  for await (const chunk of chunks) yield chunk.text;
}
