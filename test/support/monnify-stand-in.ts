// A stand-in for Monnify's API (docs/providers-monnify.md): a real HTTP server on 127.0.0.1
// answering the documented requests in the documented envelope, with Basic auth on login,
// expiring Bearer tokens elsewhere, reserved accounts, collections and disbursements kept in
// memory, and controls for tests (failures, payments with or without their signed
// notification, a status answer that disagrees, disbursement outcomes, request counts).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  disbursementEvent,
  disbursementView,
  ok,
  refusal,
  reservedAccountView,
  searchPage,
  signedNotification,
  successfulTransactionEvent,
  transactionView,
  type SignedNotification,
  type StandInState,
  type StandInTransaction,
} from './monnify-stand-in-documents';
import { handleDisbursement, handleReserve } from './monnify-stand-in-writes';

export type { SignedNotification, StandInState } from './monnify-stand-in-documents';

export type MonnifyOperation =
  | 'login'
  | 'reserveAccount'
  | 'getReservedAccount'
  | 'transactionStatus'
  | 'searchTransactions'
  | 'disburse'
  | 'disbursementSummary';

export interface PaymentOptions {
  senderAccount?: string;
  senderBankCode?: string;
  senderName?: string;
  paidAt?: Date;
  /** How the notification writes `amountPaid` (Monnify's samples do both). */
  amountAs?: 'number' | 'string';
}

export interface MonnifyStandIn {
  url: string;
  apiKey: string;
  secretKey: string;
  contractCode: string;
  sourceAccount: string;
  state: StandInState;
  /** Seconds each new token lives (`expiresIn`). */
  tokenLifetimeSeconds: number;
  /** Requests so far of `operation` (with `key`: for that reference only). */
  count(operation: MonnifyOperation, key?: string): number;
  /** The next `times` requests of `operation` answer `status` (or never answer: 'hang'). */
  failNext(operation: MonnifyOperation, status: number | 'hang', times?: number): void;
  /** Every token issued so far stops working (as if expired early). */
  expireTokens(): void;
  /** A payer's transfer: recorded PAID, and its signed `SUCCESSFUL_TRANSACTION`. */
  pay(
    accountNumber: string,
    amountNgn: string,
    options?: PaymentOptions,
  ): SignedNotification & {
    transactionReference: string;
  };
  /** The same transfer with no notification (a lost one, for the sweep). */
  recordPayment(accountNumber: string, amountNgn: string, options?: PaymentOptions): string;
  /** The status and search answers show `fields` instead of the truth for this transaction. */
  disagree(transactionReference: string, fields: Record<string, unknown>): void;
  /** Settles a disbursement: its status, and the signed notification Monnify would post. */
  completeDisbursement(
    reference: string,
    status: 'SUCCESS' | 'FAILED' | 'REVERSED',
    description?: string,
  ): SignedNotification;
  /** Signs any event as Monnify would (for hand-built notifications). */
  sign(event: unknown): SignedNotification;
  close(): Promise<void>;
}

const TRANSACTION_PATH = /^\/api\/v2\/transactions\/([^/]+)$/;
const RESERVED_PATH = /^\/api\/v2\/bank-transfer\/reserved-accounts\/([^/]+)$/;

export async function startMonnifyStandIn(): Promise<MonnifyStandIn> {
  let sequence = 0;
  const state: StandInState = {
    apiKey: `MK_TEST_${randomBytes(5).toString('hex').toUpperCase()}`,
    secretKey: randomBytes(16).toString('hex').toUpperCase(),
    contractCode: String(1_000_000_000 + Math.floor(Math.random() * 8_999_999_999)),
    sourceAccount: '8016472829',
    // The banks in Monnify's reserved-account sample (customer-reserved-account guide).
    banks: [
      { bankCode: '50515', bankName: 'Moniepoint Microfinance Bank' },
      { bankCode: '035', bankName: 'Wema bank' },
      { bankCode: '232', bankName: 'Sterling bank' },
      { bankCode: '058', bankName: 'GTBank' },
    ],
    reserved: new Map(),
    transactions: new Map(),
    disbursements: new Map(),
    disbursementStatus: 'PENDING',
    nextNumber: () => String(5_000_000_000 + (sequence += 1)),
  };
  const tokens = new Map<string, number>();
  const requests: { operation: MonnifyOperation; key: string }[] = [];
  const failures = new Map<MonnifyOperation, (number | 'hang')[]>();
  const hanging = new Set<ServerResponse>();
  let transactionSequence = 0;

  const send = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const route = (req: IncomingMessage, url: URL): [MonnifyOperation, string] | null => {
    const path = url.pathname;
    if (req.method === 'POST' && path === '/api/v1/auth/login') return ['login', ''];
    if (req.method === 'POST' && path === '/api/v2/bank-transfer/reserved-accounts') {
      return ['reserveAccount', ''];
    }
    if (req.method === 'POST' && path === '/api/v2/disbursements/single') return ['disburse', ''];
    if (req.method !== 'GET') return null;
    if (path === '/api/v1/transactions/search') return ['searchTransactions', ''];
    if (path === '/api/v2/disbursements/single/summary') {
      return ['disbursementSummary', url.searchParams.get('reference') ?? ''];
    }
    const reserved = RESERVED_PATH.exec(path);
    if (reserved) return ['getReservedAccount', decodeURIComponent(reserved[1]!)];
    const transaction = TRANSACTION_PATH.exec(path);
    if (transaction) return ['transactionStatus', decodeURIComponent(transaction[1]!)];
    return null;
  };

  const authorized = (req: IncomingMessage, operation: MonnifyOperation): boolean => {
    const header = req.headers.authorization ?? '';
    if (operation === 'login') {
      const basic = Buffer.from(`${state.apiKey}:${state.secretKey}`).toString('base64');
      return header === `Basic ${basic}`;
    }
    const expiry = tokens.get(header.replace(/^Bearer /, ''));
    return header.startsWith('Bearer ') && expiry !== undefined && expiry > Date.now();
  };

  const answer = (operation: MonnifyOperation, key: string, url: URL, body: unknown) => {
    if (operation === 'login') {
      const token = randomBytes(24).toString('hex');
      tokens.set(token, Date.now() + standIn.tokenLifetimeSeconds * 1000);
      return [200, ok({ accessToken: token, expiresIn: standIn.tokenLifetimeSeconds })] as const;
    }
    if (operation === 'reserveAccount') return handleReserve(state, body);
    if (operation === 'disburse') return handleDisbursement(state, body);
    if (operation === 'getReservedAccount') {
      const account = state.reserved.get(key);
      return account
        ? ([200, ok(reservedAccountView(account, state.contractCode))] as const)
        : ([404, refusal(`Cannot find reserved account with reference ${key}`)] as const);
    }
    if (operation === 'transactionStatus') {
      const tx = state.transactions.get(key);
      return tx
        ? ([200, ok(transactionView(tx))] as const)
        : ([404, refusal(`Could not find transaction with reference ${key}`)] as const);
    }
    if (operation === 'disbursementSummary') {
      const d = state.disbursements.get(key);
      return d
        ? ([200, ok(disbursementView(d))] as const)
        : ([404, refusal(`Could not find transfer with reference ${key}`, 'D04')] as const);
    }
    return [200, ok(searchPage([...state.transactions.values()], url.searchParams))] as const;
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const routed = route(req, url);
      if (!routed) return send(res, 404, refusal(`No handler for ${req.method} ${url.pathname}`));
      const [operation, key] = routed;
      const failure = failures.get(operation)?.shift();
      if (failure === 'hang') return void hanging.add(res);
      if (!authorized(req, operation)) {
        return send(res, 401, refusal('Full authentication is required to access this resource'));
      }
      let body: unknown = null;
      try {
        body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
      } catch {
        return send(res, 400, refusal('Malformed JSON request'));
      }
      const bodyKey = (body as { accountReference?: string; reference?: string } | null) ?? {};
      requests.push({ operation, key: key || bodyKey.accountReference || bodyKey.reference || '' });
      if (failure !== undefined) {
        return send(res, failure, refusal(`Stand-in failure ${failure}`));
      }
      const [status, answerBody] = answer(operation, key, url, body);
      send(res, status, answerBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const record = (accountNumber: string, amountNgn: string, options: PaymentOptions) => {
    const owner = [...state.reserved.values()].find((account) =>
      account.accounts.some((entry) => entry.accountNumber === accountNumber),
    );
    if (!owner) throw new Error(`the stand-in has no reserved account ${accountNumber}`);
    const paidAt = options.paidAt ?? new Date();
    transactionSequence += 1;
    const stamp = paidAt
      .toISOString()
      .replace(/[^0-9]/g, '')
      .slice(0, 14);
    const tx: StandInTransaction = {
      transactionReference: `MNFY|04|${stamp}|${String(transactionSequence).padStart(6, '0')}`,
      accountReference: owner.accountReference,
      account: owner.accounts.find((entry) => entry.accountNumber === accountNumber)!,
      amount: Number(amountNgn).toFixed(2),
      paidAt,
      paymentStatus: 'PAID',
      sender: {
        accountNumber: options.senderAccount ?? '0065432190',
        bankCode: options.senderBankCode ?? '058',
        accountName: options.senderName ?? 'ADAEZE OKAFOR',
      },
      customer: { name: owner.customerName, email: owner.customerEmail },
      sessionId: randomBytes(16).toString('hex'),
      overrides: {},
    };
    state.transactions.set(tx.transactionReference, tx);
    return tx;
  };

  const standIn: MonnifyStandIn = {
    url: `http://127.0.0.1:${port}`,
    apiKey: state.apiKey,
    secretKey: state.secretKey,
    contractCode: state.contractCode,
    sourceAccount: state.sourceAccount,
    state,
    tokenLifetimeSeconds: 3600,
    count: (operation, key) =>
      requests.filter((r) => r.operation === operation && (key === undefined || r.key === key))
        .length,
    failNext: (operation, status, times = 1) =>
      failures.set(operation, [...(failures.get(operation) ?? []), ...Array(times).fill(status)]),
    expireTokens: () => tokens.clear(),
    pay: (accountNumber, amountNgn, options = {}) => {
      const tx = record(accountNumber, amountNgn, options);
      return {
        transactionReference: tx.transactionReference,
        ...signedNotification(
          state.secretKey,
          successfulTransactionEvent(tx, options.amountAs ?? 'number'),
        ),
      };
    },
    recordPayment: (accountNumber, amountNgn, options = {}) =>
      record(accountNumber, amountNgn, options).transactionReference,
    disagree: (transactionReference, fields) => {
      const tx = state.transactions.get(transactionReference);
      if (!tx) throw new Error(`the stand-in has no transaction ${transactionReference}`);
      tx.overrides = { ...tx.overrides, ...fields };
    },
    completeDisbursement: (reference, status, description) => {
      const d = state.disbursements.get(reference);
      if (!d) throw new Error(`the stand-in has no disbursement ${reference}`);
      d.status = status;
      d.description =
        description ??
        (status === 'SUCCESS' ? 'Approved or completed successfully' : 'Transfer failed');
      d.completedAt = new Date();
      return signedNotification(state.secretKey, disbursementEvent(d));
    },
    sign: (event) => signedNotification(state.secretKey, event),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return standIn;
}

/** The settings that point the service's Monnify provider at this stand-in. */
export function monnifySettings(standIn: MonnifyStandIn): Record<string, string> {
  return {
    MONNIFY_API_KEY: standIn.apiKey,
    MONNIFY_SECRET_KEY: standIn.secretKey,
    MONNIFY_CONTRACT_CODE: standIn.contractCode,
    MONNIFY_SOURCE_ACCOUNT: standIn.sourceAccount,
    MONNIFY_BASE_URL: standIn.url,
  };
}
