import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { adminQuery, createTestDatabase } from '../support/db';
import { gatewayEnvironment } from '../../src/crypto/process-secrets';
import {
  baseEnv,
  createMerchant,
  eventually,
  startGateway,
  startStack,
  type Stack,
} from '../support/stack';
import { request, type HttpResponse } from '../support/http';
import { randomAddress, settledBalanceDeposit } from '../support/onramps';
import { sql } from '../support/sql';

/** The advisory lock the test holds; the hook below makes the key's completion wait for it. */
const HOLD = 3_200_032;
const LEASE_SECONDS = 2;

/**
 * A gateway killed between a request's effect and the completion of its `Idempotency-Key`
 * (issue 32, finding 4). The test's hook is in the database, not in the gateway: a trigger
 * makes the statement that marks the key COMPLETED wait for an advisory lock the test holds.
 * While the gateway waits there it is SIGKILLed; PostgreSQL notices the dead client
 * (`client_connection_check_interval`) and ends its session, as it would for a gateway whose
 * machine died. A retry sent to another gateway once the lease has ended must not make a
 * second withdrawal: with the answer written in the effect's own transaction there is one (on
 * 73f424d, where the answer was written after the effect's commit, there were two).
 */
describe('Idempotency-Key: a gateway killed between the effect and the completion', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let merchantId: string;
  let holder: Client;
  const env = { RATE_LIMIT_PER_MINUTE: '100000', IDEMPOTENCY_LEASE_SECONDS: String(LEASE_SECONDS) };

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    const name = new URL(databaseUrl).pathname.slice(1);
    // Sessions of this database check every 100 ms, even while waiting for a lock, that their
    // client is still there (set before any process connects).
    await adminQuery(`alter database ${name} set client_connection_check_interval = '100ms'`);
    stack = await startStack(databaseUrl, { env });
    ({ api_key: key, merchant_id: merchantId } = await createMerchant(databaseUrl, 'Crash Co'));
    await settledBalanceDeposit(stack.url, key, '200000');
    await sql(
      databaseUrl,
      `create function test_hold_idempotency_completion() returns trigger language plpgsql as $$
       begin perform pg_advisory_xact_lock(${HOLD}); return new; end $$`,
    );
    await sql(
      databaseUrl,
      `create trigger test_hold_idempotency_completion before update on idempotency_keys
         for each row when (new.state = 'COMPLETED')
         execute function test_hold_idempotency_completion()`,
    );
  });
  afterAll(async () => {
    await holder?.end().catch(() => undefined);
    await stack?.stop();
  });

  /** Holds the completion of every key until `release()`. */
  async function hold(): Promise<() => Promise<void>> {
    holder = new Client({ connectionString: databaseUrl });
    await holder.connect();
    await holder.query('select pg_advisory_lock($1)', [HOLD]);
    return async () => {
      await holder.query('select pg_advisory_unlock($1)', [HOLD]);
      await holder.end();
    };
  }

  /** The backend of the gateway's statement waiting on the test's lock. */
  const waitingBackend = () =>
    eventually(async () => {
      const [row] = await sql<{ pid: number }>(
        databaseUrl,
        `select pid from pg_locks where locktype = 'advisory' and not granted and objid = $1`,
        [HOLD],
      );
      return row?.pid;
    }, 30_000);

  const withdrawals = async () =>
    sql<{ id: string; amount: string }>(
      databaseUrl,
      'select id, amount::text as amount from withdrawals where merchant_id = $1 order by id',
      [merchantId],
    );

  /** Retries until the key's lease has ended (409 until then). */
  async function retryAfterLease(send: () => Promise<HttpResponse>): Promise<HttpResponse> {
    return eventually(
      async () => {
        const response = await send();
        // REST's `error.code`, or GraphQL's `errors[0].extensions.code`.
        const code = response.body.error?.code ?? response.body.errors?.[0]?.extensions?.code;
        if (response.status === 409 && /^idempotency_conflict$/i.test(code)) return undefined;
        return response;
      },
      30_000,
      250,
    );
  }

  /**
   * Sends the request to a gateway of its own, kills that gateway while the key's completion
   * waits, then retries on the stack's gateway until the lease has ended: one withdrawal.
   */
  async function killedBetweenEffectAndCompletion(
    send: (url: string) => Promise<HttpResponse>,
    withdrawalIdOf: (response: HttpResponse) => string,
  ) {
    const victim = await startGateway(gatewayEnvironment(baseEnv(databaseUrl, env)));
    const before = (await withdrawals()).length;

    const release = await hold();
    const first = send(victim.url).catch((error: unknown) => error);
    const backend = await waitingBackend();
    // The gateway is at the completion: the withdrawal itself has been made.
    await victim.stop('SIGKILL');
    // No answer (a fetch error, not a response): the client only knows to retry.
    expect(await first).not.toHaveProperty('status');
    await eventually(async () => {
      const alive = await sql(databaseUrl, 'select 1 from pg_stat_activity where pid = $1', [
        backend,
      ]);
      return alive.length === 0 ? true : undefined;
    });
    await release();

    const retry = await retryAfterLease(() => send(stack.url));
    expect(retry.status).toBeLessThan(300);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const made = (await withdrawals()).slice(before);
    expect(made).toEqual([{ id: withdrawalIdOf(retry), amount: '25.000000' }]);

    // And from then on the key replays that one answer.
    const replay = await send(stack.url);
    expect(replay.status).toBe(retry.status);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(retry.text);
    expect((await withdrawals()).length).toBe(before + 1);
  }

  const idempotencyKey = () => ({
    'Idempotency-Key': `crash-${randomBytes(8).toString('hex')}`,
  });

  it('REST: the retry after the lease makes no second withdrawal', async () => {
    const body = {
      amount: '25',
      asset: 'USDC',
      chain: 'BASE',
      destination_address: randomAddress(),
    };
    const headers = idempotencyKey();
    await killedBetweenEffectAndCompletion(
      (url) => request(url, 'POST', '/v1/merchant/withdraw', { key, body, headers }),
      (response) => response.body.withdrawal_id,
    );
  });

  it('GraphQL: the retry of a withdraw mutation after the lease makes no second withdrawal', async () => {
    const body = {
      query: 'mutation ($input: WithdrawInput!) { withdraw(input: $input) { withdrawalId } }',
      variables: {
        input: { amount: '25', asset: 'USDC', chain: 'BASE', destinationAddress: randomAddress() },
      },
    };
    const headers = idempotencyKey();
    await killedBetweenEffectAndCompletion(
      (url) => request(url, 'POST', '/graphql', { key, body, headers }),
      (response) => response.body.data.withdraw.withdrawalId,
    );
  });
});
