// A stand-in for Paystack's API (https://api.paystack.co) over real HTTP on 127.0.0.1: the
// documented endpoints the Paystack provider calls, Bearer secret-key auth, Paystack's answer
// and error bodies, and notifications signed as Paystack signs them. Tests (and the e2e suite)
// start it with `startPaystackStandIn()` and point PAYSTACK_BASE_URL at `url`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  PaystackBooks,
  refusal,
  ok,
  type Answer,
  type VerifyDisagreement,
} from './paystack-stand-in-books';
import { PaystackTransferBooks } from './paystack-stand-in-transfers';
import {
  chargeSuccessData,
  sampleCharge,
  SAMPLE_PROVIDERS,
  signedNotification,
  transferData,
  type Json,
  type SampleCharge,
  type SignedNotification,
} from './paystack-samples';

export type { SignedNotification } from './paystack-samples';

/**
 * How the stand-in fails a request: an HTTP status with Paystack's error body; 'hang' (no
 * answer, nothing done); 'lost' (done, then the connection dropped: the answer is lost).
 */
export type Failure = number | 'hang' | 'lost';

export interface PaymentOptions {
  reference?: string;
  senderName?: string;
  senderBank?: string;
  /** The payer's account as Paystack shows it (masked in its samples: `XXXXXX0011`). */
  senderAccount?: string;
  paidAt?: Date;
}

export interface PaystackStandIn {
  url: string;
  secretKey: string;
  books: PaystackBooks;
  transferBooks: PaystackTransferBooks;
  /** Every request: method, path (with query), and whether its Bearer key was right. */
  requests: { method: string; path: string; authorized: boolean; body: unknown }[];
  /**
   * The next `times` requests to `target` fail. `target`: an operation (`POST /transfer`,
   * `GET /transaction/verify/:reference`), or a method and path (`GET /balance`).
   */
  failNext(target: string, failure: Failure, times?: number): void;
  /** A successful transfer into a dedicated account, and its signed `charge.success`. */
  pay(
    accountNumber: string,
    amountKobo: number,
    options?: PaymentOptions,
  ): SignedNotification & { reference: string };
  /** The same transaction with no notification (one Paystack failed to deliver: the sweep's case). */
  record(accountNumber: string, amountKobo: number, options?: PaymentOptions): SampleCharge;
  /** Verify answers otherwise than the record (or not at all: 'unknown'). */
  disagree(reference: string, disagreement: VerifyDisagreement): void;
  /** Any notification body, signed with the secret key. */
  signedNotification(event: string, data: unknown): SignedNotification;
  /** Ends a transfer (our reference or Paystack's) and gives its signed `transfer.*` notification. */
  completeTransfer(
    reference: string,
    outcome: 'success' | 'failed' | 'reversed',
  ): SignedNotification;
  /** Transfers Paystack holds under a reference (never above 1 when the client is idempotent). */
  transferCount(reference: string): number;
  /** POST /transfer requests made with a reference (accepted or refused). */
  transferAttempts(reference: string): number;
  close(): Promise<void>;
}

type Route = {
  operation: string;
  method: 'GET' | 'POST';
  pattern: RegExp;
  answer: (match: string[], query: URLSearchParams, body: Json) => Answer;
};

function routes(books: PaystackBooks, transferBooks: PaystackTransferBooks): Route[] {
  const route = (operation: string, pattern: RegExp, answer: Route['answer']): Route => ({
    operation,
    method: operation.startsWith('POST') ? 'POST' : 'GET',
    pattern,
    answer,
  });
  return [
    route('POST /customer', /^\/customer$/, (_m, _q, body) => books.createCustomer(body)),
    route('GET /customer/:email_or_code', /^\/customer\/([^/]+)$/, ([key]) => {
      const customer = books.customerByEmailOrCode(decodeURIComponent(key!));
      // PS-SNIP api/customers/fetch/response.json: the 404 answer.
      return customer
        ? ok('Customer retrieved', books.customerData(customer))
        : refusal(404, 'Customer email is invalid for your live domain.', 'not_found');
    }),
    route(
      'GET /dedicated_account/available_providers',
      /^\/dedicated_account\/available_providers$/,
      () => ok('Dedicated account providers retrieved', SAMPLE_PROVIDERS),
    ),
    route('POST /dedicated_account', /^\/dedicated_account$/, (_m, _q, body) =>
      books.createDedicatedAccount(body),
    ),
    route('GET /dedicated_account', /^\/dedicated_account$/, (_m, query) =>
      books.listDedicatedAccounts(query),
    ),
    route('GET /bank', /^\/bank$/, (_m, query) => books.listBanks(query)),
    route('GET /balance', /^\/balance$/, () =>
      ok('Balances retrieved', [{ currency: 'NGN', balance: 1700000 }]),
    ),
    route('GET /transaction/verify/:reference', /^\/transaction\/verify\/([^/]+)$/, ([reference]) =>
      books.verifyTransaction(decodeURIComponent(reference!)),
    ),
    route('GET /transaction', /^\/transaction$/, (_m, query) => books.listTransactions(query)),
    route('POST /transferrecipient', /^\/transferrecipient$/, (_m, _q, body) =>
      transferBooks.createRecipient(body),
    ),
    route('POST /transfer', /^\/transfer$/, (_m, _q, body) => transferBooks.createTransfer(body)),
    route('GET /transfer/verify/:reference', /^\/transfer\/verify\/([^/]+)$/, ([reference]) =>
      transferBooks.verifyTransfer(decodeURIComponent(reference!)),
    ),
  ];
}

/** The error body of an injected failure (the rate-limit one as Paystack's beta docs give it). */
function failureAnswer(status: number): Answer {
  if (status === 429)
    return {
      status,
      body: {
        status: false,
        message: 'Too many requests',
        type: 'api_error',
        code: 'rate_limited',
      },
    };
  if (status >= 500)
    return {
      status,
      body: { status: false, message: 'An error occurred', type: 'api_error', code: 'unknown' },
    };
  return refusal(status, 'Request refused by the stand-in');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startPaystackStandIn(
  secretKey = `sk_test_standin${Math.random().toString(36).slice(2, 14)}`,
): Promise<PaystackStandIn> {
  let lastId = 1000;
  const id = () => (lastId += 1);
  const books = new PaystackBooks(id);
  const transferBooks = new PaystackTransferBooks(id);
  const table = routes(books, transferBooks);
  const failures: { target: string; failure: Failure; times: number }[] = [];
  const requests: PaystackStandIn['requests'] = [];
  const hanging = new Set<ServerResponse>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const raw = await readBody(req);
    let body: unknown = {};
    try {
      body = raw === '' ? {} : JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const authorized = req.headers.authorization === `Bearer ${secretKey}`;
    requests.push({
      method: req.method ?? '',
      path: `${url.pathname}${url.search}`,
      authorized,
      body,
    });
    const send = ({ status, body: answer }: Answer) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));

    if (!req.headers.authorization)
      return send({
        status: 401,
        body: { status: false, message: 'No Authorization Header was found' },
      });
    if (!authorized) return send({ status: 401, body: { status: false, message: 'Invalid key' } });
    const route = table.find((r) => r.method === req.method && r.pattern.test(url.pathname));
    if (!route) return send({ status: 404, body: { status: false, message: 'Not found' } });
    const pending = failures.find((f) =>
      [route.operation, `${req.method} ${url.pathname}`, url.pathname].includes(f.target),
    );
    if (pending) {
      pending.times -= 1;
      if (pending.times <= 0) failures.splice(failures.indexOf(pending), 1);
      if (pending.failure === 'hang') return void hanging.add(res);
      if (typeof pending.failure === 'number') return send(failureAnswer(pending.failure));
    }
    if (body === undefined || typeof body !== 'object' || body === null) {
      return send(refusal(400, 'Invalid JSON body'));
    }
    const answer = route.answer(
      route.pattern.exec(url.pathname)!.slice(1),
      url.searchParams,
      body as Json,
    );
    if (pending?.failure === 'lost') return void res.destroy();
    return send(answer);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: false, message: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const record = (accountNumber: string, amountKobo: number, options: PaymentOptions = {}) => {
    const account = books.accounts.find((a) => a.accountNumber === accountNumber);
    const customer = books.customers.find((c) => c.id === account?.customerId);
    const charge = sampleCharge({
      id: books.id(),
      reference: options.reference ?? `T${books.id()}_${Math.random().toString(36).slice(2, 10)}`,
      amount: amountKobo,
      paidAt: (options.paidAt ?? new Date()).toISOString(),
      receiverAccount: accountNumber,
      receiverBank: account?.bank.name ?? 'Wema Bank',
      ...(customer ? { customer } : {}),
      ...(options.senderName ? { senderName: options.senderName } : {}),
      ...(options.senderBank ? { senderBank: options.senderBank } : {}),
      ...(options.senderAccount ? { senderAccount: options.senderAccount } : {}),
    });
    books.charges.push(charge);
    return charge;
  };
  const sign = (event: string, data: unknown) => signedNotification(secretKey, event, data);

  return {
    url: `http://127.0.0.1:${port}`,
    secretKey,
    books,
    transferBooks,
    requests,
    failNext: (target, failure, times = 1) => void failures.push({ target, failure, times }),
    record,
    pay: (accountNumber, amountKobo, options) => {
      const charge = record(accountNumber, amountKobo, options);
      return { ...sign('charge.success', chargeSuccessData(charge)), reference: charge.reference };
    },
    disagree: (reference, disagreement) => void books.disagreements.set(reference, disagreement),
    signedNotification: sign,
    completeTransfer: (reference, outcome) => {
      const transfer = transferBooks.transfers.get(reference.toLowerCase());
      if (!transfer) throw new Error(`the stand-in holds no transfer ${reference}`);
      transfer.status = outcome;
      transfer.transferredAt = outcome === 'success' ? new Date().toISOString() : null;
      return sign(`transfer.${outcome}`, transferData(transfer));
    },
    transferCount: (reference) => (transferBooks.transfers.has(reference.toLowerCase()) ? 1 : 0),
    transferAttempts: (reference) =>
      requests.filter(
        (r) =>
          r.method === 'POST' &&
          r.path === '/transfer' &&
          (r.body as Json | undefined)?.reference === reference.toLowerCase(),
      ).length,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The settings that point the service's Paystack provider at this stand-in. */
export function paystackSettings(standIn: PaystackStandIn): Record<string, string> {
  return { PAYSTACK_SECRET_KEY: standIn.secretKey, PAYSTACK_BASE_URL: standIn.url };
}
