import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, environmentOf, type Services } from '../../src/container';
import { narrowedTo, operatorContext } from '../../src/context/request-context';
import { DomainError, ErrorCode } from '../../src/domain/errors';
import { depositViewFromSnapshot } from '../../src/deposits/deposit-view';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { clientSecretContext, secretKeyContext } from '../support/contexts';

/**
 * Every read method of the deposit and onramp services takes a request context and applies
 * its scope in SQL: a client secret reads its own onramp and nothing else, with the answers
 * the API has always given (403 for another onramp of its merchant, nothing for another
 * merchant's). Real PostgreSQL.
 */
describe('reads scoped by the request context', () => {
  let orm: MikroORM;
  let services: Services;
  const clock = new ManualClock('2026-07-01T12:00:00Z');
  let merchant: string;
  let other: string;
  const onramp = { own: '', sibling: '', foreign: '' };
  const deposit = { own: '', sibling: '', foreign: '' };

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    services = createServices(loadConfig({ ONRAMP_DAILY_LIMIT: '1000' }), clock);
    const kit = depositKit(orm, services, clock);
    await kit.rate();
    merchant = await kit.merchant('Scope Co');
    other = await kit.merchant('Other Co');
    for (const [key, owner] of [
      ['own', merchant],
      ['sibling', merchant],
      ['foreign', other],
    ] as const) {
      const created = await kit.onramp(owner, 'PERMANENT');
      onramp[key] = created.id;
      deposit[key] = (await kit.transfer(created.accountNumber, '15000')).id;
    }
  }, 120_000);
  afterAll(() => orm.close());

  const em = () => orm.em.fork();
  const secret = () => clientSecretContext(services, merchant, onramp.own);
  const key = () => secretKeyContext(services, merchant);

  async function refusal(read: Promise<unknown>): Promise<ErrorCode> {
    const error = await read.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).code;
  }

  describe('a client secret', () => {
    it('findView: its own deposit; another onramp of its merchant 403; another merchant or unknown: nothing', async () => {
      await expect(services.deposits.findView(em(), secret(), deposit.own)).resolves.toMatchObject({
        id: deposit.own,
        onrampId: onramp.own,
      });
      expect(await refusal(services.deposits.findView(em(), secret(), deposit.sibling))).toBe(
        ErrorCode.Forbidden,
      );
      await expect(services.deposits.findView(em(), secret(), deposit.foreign)).resolves.toBeNull();
      await expect(services.deposits.findView(em(), secret(), 'dep_unknown')).resolves.toBeNull();
    });

    it('getView: 403 for another onramp of its merchant, 404 for another merchant', async () => {
      expect(await refusal(services.deposits.getView(em(), secret(), deposit.sibling))).toBe(
        ErrorCode.Forbidden,
      );
      expect(await refusal(services.deposits.getView(em(), secret(), deposit.foreign))).toBe(
        ErrorCode.NotFound,
      );
    });

    it('list and listAfter: its onramp only; naming another onramp is 403', async () => {
      const page = { offset: 0, limit: 100 };
      const listed = await services.deposits.list(em(), secret(), {}, page);
      expect(listed.deposits.map((d) => d.id)).toEqual([deposit.own]);
      expect(listed.total).toBe(1);
      const keyset = await services.deposits.listAfter(
        em(),
        secret(),
        {},
        {
          first: 100,
          after: null,
        },
      );
      expect(keyset.deposits.map((d) => d.id)).toEqual([deposit.own]);
      expect(keyset.total).toBe(1);
      for (const named of [onramp.sibling, onramp.foreign]) {
        expect(
          await refusal(services.deposits.list(em(), secret(), { onrampId: named }, page)),
        ).toBe(ErrorCode.Forbidden);
        expect(
          await refusal(
            services.deposits.listAfter(
              em(),
              secret(),
              { onrampId: named },
              {
                first: 100,
                after: null,
              },
            ),
          ),
        ).toBe(ErrorCode.Forbidden);
      }
      // The scope is checked before the filter, as the API always answered.
      expect(
        await refusal(
          services.deposits.list(
            em(),
            secret(),
            { onrampId: onramp.sibling, status: 'NOPE' },
            page,
          ),
        ),
      ).toBe(ErrorCode.Forbidden);
    });

    it('statusHistories: its own deposits only', async () => {
      const histories = await services.deposits.statusHistories(em(), secret(), [
        deposit.own,
        deposit.sibling,
        deposit.foreign,
      ]);
      expect([...histories.keys()]).toEqual([deposit.own]);
      const merchantWide = await services.deposits.statusHistories(em(), key(), [
        deposit.own,
        deposit.sibling,
        deposit.foreign,
      ]);
      expect([...merchantWide.keys()].sort()).toEqual([deposit.own, deposit.sibling].sort());
    });

    it('watch: held to its onramp; another onramp or its deposit is 403; another merchant matches nothing', async () => {
      await expect(services.deposits.watch(em(), secret(), {})).resolves.toEqual({
        merchantId: merchant,
        onrampId: onramp.own,
        depositId: undefined,
      });
      expect(
        await refusal(services.deposits.watch(em(), secret(), { onrampId: onramp.sibling })),
      ).toBe(ErrorCode.Forbidden);
      expect(
        await refusal(services.deposits.watch(em(), secret(), { depositId: deposit.sibling })),
      ).toBe(ErrorCode.Forbidden);
      await expect(
        services.deposits.watch(em(), secret(), { depositId: deposit.foreign }),
      ).resolves.toEqual({
        merchantId: merchant,
        onrampId: onramp.own,
        depositId: deposit.foreign,
      });
    });

    it('settledVolume and the onramp listings are 403', async () => {
      expect(await refusal(services.deposits.settledVolume(em(), secret(), 7))).toBe(
        ErrorCode.Forbidden,
      );
      expect(await refusal(services.onramps.list(em(), secret(), { offset: 0, limit: 10 }))).toBe(
        ErrorCode.Forbidden,
      );
      expect(await refusal(services.onramps.listAfter(em(), secret(), null, 10))).toBe(
        ErrorCode.Forbidden,
      );
    });

    it('onramps find/get: its own; any other id is 403 before anything is read', async () => {
      await expect(services.onramps.find(em(), secret(), onramp.own)).resolves.toMatchObject({
        id: onramp.own,
      });
      for (const id of [onramp.sibling, onramp.foreign, 'onr_unknown']) {
        expect(await refusal(services.onramps.find(em(), secret(), id))).toBe(ErrorCode.Forbidden);
        expect(await refusal(services.onramps.get(em(), secret(), id))).toBe(ErrorCode.Forbidden);
      }
    });
  });

  describe('a secret key', () => {
    it("reads every onramp of its merchant and nothing of another's", async () => {
      await expect(services.deposits.findView(em(), key(), deposit.sibling)).resolves.toMatchObject(
        { id: deposit.sibling },
      );
      await expect(services.deposits.findView(em(), key(), deposit.foreign)).resolves.toBeNull();
      const listed = await services.deposits.list(em(), key(), {}, { offset: 0, limit: 100 });
      expect(listed.deposits.map((d) => d.id).sort()).toEqual(
        [deposit.own, deposit.sibling].sort(),
      );
      await expect(
        services.deposits.list(
          em(),
          key(),
          { onrampId: onramp.foreign },
          { offset: 0, limit: 100 },
        ),
      ).resolves.toEqual({ deposits: [], total: 0 });
      expect(await refusal(services.onramps.get(em(), key(), onramp.foreign))).toBe(
        ErrorCode.NotFound,
      );
      await expect(services.onramps.get(em(), key(), onramp.sibling)).resolves.toMatchObject({
        id: onramp.sibling,
      });
    });
  });

  it('an operator reads every merchant, or the one it narrowed to', async () => {
    const everyone = operatorContext('cli:test', {
      environment: environmentOf(services.config),
      clock,
    });
    await expect(
      services.deposits.findView(em(), everyone, deposit.foreign),
    ).resolves.toMatchObject({ id: deposit.foreign, merchantId: other });
    const all = await services.deposits.listAfter(em(), everyone, {}, { first: 100, after: null });
    expect(all.deposits.map((d) => d.id).sort()).toEqual(Object.values(deposit).sort());
    const one = narrowedTo(everyone, other);
    const narrowed = await services.deposits.listAfter(em(), one, {}, { first: 100, after: null });
    expect(narrowed.deposits.map((d) => d.id)).toEqual([deposit.foreign]);
    await expect(services.deposits.findView(em(), one, deposit.own)).resolves.toBeNull();
  });

  it('one mapping: a deposit read with the view columns equals its outbox snapshot', async () => {
    const view = await services.deposits.getView(em(), key(), deposit.own);
    const [event] = await em()
      .getConnection()
      .execute<Array<{ snapshot: Record<string, unknown> }>>(
        'select snapshot from events where deposit_id = ? order by seq desc limit 1',
        [deposit.own],
      );
    expect(depositViewFromSnapshot(event.snapshot)).toEqual(view);
  });
});
