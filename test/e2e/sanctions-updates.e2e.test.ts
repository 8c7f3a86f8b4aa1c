import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Address } from 'viem';
import { toBaseUnits } from '../../src/domain/payout-rules';
import { startTestChains, type TestChains } from '../support/chains';
import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { randomAddress, sandboxTransfer } from '../support/onramps';
import { baseEnv, createMerchant, eventually, onrampCli, startStack } from '../support/stack';
import type { Stack } from '../support/stack';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

const execFileAsync = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

/**
 * Sanctions list updates through the processes (issue 36): `onramp sanctions update FILE`
 * flags the next deposit of an onramp whose destination it lists, and stops a payout not yet
 * signed; a malformed file and a 1,000,000-line one are refused whole, in the error shape,
 * and change nothing.
 */
describe('sanctions list updates through the processes', () => {
  let chains: TestChains;
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let operatorToken: string;
  let dir: string;

  beforeAll(async () => {
    chains = await startTestChains();
    dir = mkdtempSync(join(tmpdir(), 'onramp-sanctions-'));
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: { ...chains.env, RATE_LIMIT_PER_MINUTE: '100000', PAYOUT_POLL_MS: '300' },
    });
    key = (await createMerchant(databaseUrl, 'Listed Later Co')).api_key;
    operatorToken = (
      (await onrampCli(databaseUrl, ['operators', 'issue', '--name', 'ada', '--json'])) as {
        token: string;
      }
    ).token;
  });
  afterAll(async () => {
    await stack?.stop();
    await chains?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** `onramp ARGS --json`, whatever its exit code: the code, stdout's and stderr's JSON. */
  async function cli(args: string[]): Promise<{ code: number; out: Loose; err: Loose }> {
    const run = execFileAsync(process.execPath, [join(ROOT, 'bin', 'onramp.js'), ...args], {
      env: { ...baseEnv(databaseUrl), LOG_LEVEL: 'silent' },
      maxBuffer: 1024 * 1024,
    });
    const parse = (text: string) => (text.trim() ? JSON.parse(text.trim()) : null);
    try {
      const { stdout } = await run;
      return { code: 0, out: parse(stdout), err: null };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, out: parse(failed.stdout), err: parse(failed.stderr) };
    }
  }
  const listFile = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const status = async () => (await cli(['sanctions', 'status', '--json'])).out;
  const admin = (query: string, variables?: Record<string, unknown>) =>
    request<Loose>(stack.internalUrl, 'POST', '/admin/graphql', {
      key: operatorToken,
      body: { query, variables },
    });
  const auditOf = async (targetId: string) =>
    (
      await admin(
        'query($t: ID!) { auditLog(targetId: $t) { edges { node { actor action after } } } }',
        { t: targetId },
      )
    ).body.data.auditLog.edges.map((e: Loose) => e.node);
  const permanentOnramp = async (destination: string) => {
    const created = await request<Loose>(stack.url, 'POST', '/v1/onramp', {
      key,
      body: {
        type: 'PERMANENT',
        user: { email: 'ada@example.com' },
        settlement: {
          mode: 'AUTO_WITHDRAW',
          asset: 'USDC',
          chain: 'BASE',
          destination_address: destination,
        },
      },
    });
    expect(created.status).toBe(201);
    return created.body.virtual_account.account_number as string;
  };
  const depositWhen = (id: string, wanted: string) =>
    eventually(async () => {
      const d = (await request<Loose>(stack.url, 'GET', `/v1/deposits/${id}`, { key })).body;
      return d.status === wanted ? d : undefined;
    }, 30_000);

  it("a CLI update flags the next deposit of an existing onramp, audited with the list's date", async () => {
    const destination = randomAddress();
    const account = await permanentOnramp(destination);
    const first = await sandboxTransfer(stack.url, key, account, '15000');
    await depositWhen(first.deposit_id, 'SETTLED');

    const path = listFile('update.txt', `# date: 2026-11-28\n${destination.toLowerCase()}\n`);
    const updated = await cli(['sanctions', 'update', path, '--json']);
    expect(updated).toMatchObject({ code: 0, out: { list_date: '2026-11-28', address_count: 1 } });
    const next = await sandboxTransfer(stack.url, key, account, '15000');
    const flagged = await depositWhen(next.deposit_id, 'FLAGGED');
    expect(flagged).toMatchObject({ flag_reason: 'Sanctions screening', tx_hash: null });
    // Paid nothing: the destination holds exactly the first deposit's transfer.
    const settled = await depositWhen(first.deposit_id, 'SETTLED');
    expect(await chains.tokenBalance('BASE', 'USDC', destination as Address)).toBe(
      toBaseUnits(settled.amount_asset),
    );
    expect(await auditOf(next.deposit_id)).toEqual([
      {
        actor: 'system:sanctions_screening',
        action: 'sanctions.flag_deposit',
        after: expect.objectContaining({ list_date: '2026-11-28', stage: 'settlement' }),
      },
    ]);
    const replaced = (await auditOf('sanctions_list')).filter(
      (e: Loose) => e.actor.startsWith('cli:') && e.action === 'sanctions.replace_list',
    );
    expect(replaced).toHaveLength(1);
  });

  it('a deposit whose payout is not yet signed when its destination is listed pays nothing', async () => {
    const destination = randomAddress();
    const account = await permanentOnramp(destination);
    const outage = (chainsDown: string[]) =>
      graphql(
        stack.url,
        key,
        'mutation($c: [String!]) { setSandboxScenario(input: { chainOutage: $c }) { chainOutage } }',
        { c: chainsDown },
      );
    await outage(['BASE']);
    const deposit = await sandboxTransfer(stack.url, key, account, '15000');
    await depositWhen(deposit.deposit_id, 'PENDING_WITHDRAWAL');
    const path = listFile('pending.txt', `# date: 2026-11-29\n${destination}\n`);
    expect((await cli(['sanctions', 'update', path, '--json'])).code).toBe(0);
    await outage([]);
    const flagged = await depositWhen(deposit.deposit_id, 'FLAGGED');
    expect(flagged).toMatchObject({ flag_reason: 'Sanctions screening', tx_hash: null });
    expect(await chains.tokenBalance('BASE', 'USDC', destination as Address)).toBe(0n);
    expect(await auditOf(deposit.deposit_id)).toEqual([
      expect.objectContaining({
        action: 'sanctions.flag_deposit',
        after: expect.objectContaining({ list_date: '2026-11-29', stage: 'payout_signing' }),
      }),
    ]);
  });

  it('a malformed list and 1,000,000-line lists are refused whole in the error shape; nothing changes', async () => {
    const before = await status();
    const malformed = listFile('bad.txt', `${randomAddress()}\n\n0xnot-an-address\n`);
    const millionAddresses = listFile(
      'million.txt',
      Array.from({ length: 1_000_000 }, (_, n) => `0x${n.toString(16).padStart(40, '0')}`).join(
        '\n',
      ),
    );
    const millionComments = listFile('comments.txt', '#\n'.repeat(1_000_000));
    const refusals = [
      [malformed, /line 3: "0xnot-an-address" is not an EVM address/],
      [millionAddresses, /larger than 8,388,608 bytes/],
      [millionComments, /more than 100,000 lines/],
    ] as const;
    for (const [path, why] of refusals) {
      const started = Date.now();
      const refused = await cli(['sanctions', 'update', path, '--json']);
      expect(refused).toMatchObject({ code: 1, out: null });
      expect(refused.err).toEqual({
        error: { code: 'invalid_sanctions_list', message: expect.stringMatching(why) },
      });
      expect(Date.now() - started).toBeLessThan(30_000);
    }
    // The same list over admin GraphQL: refused naming the line; a huge one by the body limit.
    const viaAdmin = await admin(
      'mutation($l: String!) { updateSanctionsList(list: $l) { listDate } }',
      {
        l: `${randomAddress()}\nnope\n`,
      },
    );
    expect(viaAdmin.body.errors[0]).toMatchObject({
      message: expect.stringContaining('line 2'),
      extensions: { code: 'INVALID_PARAMETER' },
    });
    const huge = await admin(
      'mutation($l: String!) { updateSanctionsList(list: $l) { listDate } }',
      {
        l: '#\n'.repeat(1_000_000),
      },
    );
    expect(huge.status).toBe(413);
    // GraphQL's own error shape, as every GraphQL refusal of this service.
    expect(huge.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await status()).toEqual(before);
  });

  it('an update over admin GraphQL is in force for the next request, and shows in the status', async () => {
    const listed = randomAddress();
    const updated = await admin(
      'mutation($l: String!) { updateSanctionsList(list: $l) { listDate addressCount origin installedBy } }',
      { l: `# date: 2026-11-30\n${listed}\n` },
    );
    expect(updated.body.data.updateSanctionsList).toEqual({
      listDate: '2026-11-30',
      addressCount: 1,
      origin: 'operator',
      installedBy: 'operator:ada',
    });
    expect(await status()).toMatchObject({ list_date: '2026-11-30', address_count: 1 });
    const refused = await request<Loose>(stack.url, 'POST', '/v1/merchant/withdrawal_addresses', {
      key,
      body: { chain: 'POLYGON', address: listed.toLowerCase() },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('address_sanctioned');
  });
});
