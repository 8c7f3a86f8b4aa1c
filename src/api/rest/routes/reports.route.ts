import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { Services } from '../../../container';
import { requestContextOf } from '../../principal';
import { parseReportRange, type ReportRange } from '../../../domain/report-range';
import { depositReport, ledgerReport, reportText, type ReportChunk } from '../../../reports';
import { errorResponses } from '../schemas';

const ReportQuery = Type.Object({
  from: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        'Required. Start, inclusive: an Africa/Lagos date (2026-11-01) or a timestamp with a zone',
    }),
  ),
  to: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        'Required. End, inclusive: an Africa/Lagos date (its whole day) or a timestamp; at most 366 days after from',
    }),
  ),
});

const csvResponse = (description: string) => ({
  200: {
    description,
    content: { 'text/csv': { schema: Type.String({ description: 'RFC 4180, UTF-8, CRLF' }) } },
  },
});

/** The file name a browser saves: the report and its period, as asked. */
function fileName(report: string, query: { from?: string; to?: string }, range: ReportRange) {
  const safe = (value: string | undefined, fallback: Date) =>
    (value ?? fallback.toISOString()).replace(/[^0-9A-Za-z-]/g, '');
  return `${report}-${safe(query.from, range.from)}-${safe(query.to, range.before)}.csv`;
}

/**
 * Streams a report: headers first, then each chunk as the database gives it, with back
 * pressure (the next chunk is read only when the client has taken the last). The range is
 * checked before anything is sent, so a bad `from` is a 400 in the error shape. A failure
 * after the first byte can only cut the response short: the connection closes without the
 * final chunk, which HTTP clients report as an incomplete body.
 */
function streamCsv(reply: FastifyReply, name: string, chunks: AsyncGenerator<ReportChunk>) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}"`)
    .header('cache-control', 'no-store')
    .send(Readable.from(reportText(chunks), { objectMode: false }));
}

export const reportRoutes =
  (_services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/reports/deposits.csv',
      {
        config: { scopes: ['deposits:read'], dashboardSession: true },
        schema: {
          operationId: 'exportDepositsCsv',
          summary: 'Deposits created in a period, as CSV, oldest first (streamed)',
          tags: ['reports'],
          querystring: ReportQuery,
          response: { ...csvResponse('deposits.csv'), ...errorResponses(403) },
        },
      },
      async (request, reply) => {
        const range = parseReportRange(request.query);
        const ctx = requestContextOf(request);
        const rows = depositReport(request.em, ctx, range);
        return streamCsv(reply, fileName('deposits', request.query, range), rows);
      },
    );

    app.get(
      '/v1/reports/ledger.csv',
      {
        config: { scopes: ['balance:read'], dashboardSession: true },
        schema: {
          operationId: 'exportLedgerCsv',
          summary: "Postings on the merchant's USD balances in a period, as CSV (streamed)",
          tags: ['reports'],
          querystring: ReportQuery,
          response: { ...csvResponse('ledger.csv'), ...errorResponses(403) },
        },
      },
      async (request, reply) => {
        const range = parseReportRange(request.query);
        const ctx = requestContextOf(request);
        const rows = ledgerReport(request.em, ctx, range);
        return streamCsv(reply, fileName('ledger', request.query, range), rows);
      },
    );
  };
