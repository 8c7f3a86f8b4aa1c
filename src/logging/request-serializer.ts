import type { IncomingMessage } from 'node:http';
import { maskPayerLinks } from './redact';

/** What Fastify's request serializer reads (a FastifyRequest; a bare IncomingMessage too). */
interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: IncomingMessage['headers'];
  socket?: { remotePort?: number };
}

/**
 * The `req` of every request log line: Fastify's own fields, with the URL of a payer
 * resolution link cut after `/pay/resolve/` (GET page and POST choice alike, any case, any
 * query string), since the URL's token is the payer's credential. The line rule
 * (`redactLogLine`) masks it again wherever else it might show.
 */
export function requestLogFields(req: LoggedRequest) {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? maskPayerLinks(req.url) : req.url,
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
