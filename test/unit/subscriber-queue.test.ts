import { SubscriberQueue } from '../../src/api/subscriptions/subscriber-queue';
import { DomainError, ErrorCode } from '../../src/domain/errors';

function queue(limit = 3) {
  const calls = { ended: 0, overflows: [] as DomainError[] };
  const q = new SubscriberQueue<number>({
    limit,
    onEnd: () => (calls.ended += 1),
    onOverflow: (error) => calls.overflows.push(error),
  });
  return { q, calls };
}

describe('SubscriberQueue (one subscriber, bounded)', () => {
  it('delivers pushed values in order, including to a consumer already waiting', async () => {
    const { q } = queue();
    const waiting = q.next();
    expect(q.push(1)).toBe(true);
    expect(q.push(2)).toBe(true);
    expect(q.push(3)).toBe(true);
    expect(await waiting).toEqual({ value: 1, done: false });
    expect(await q.next()).toEqual({ value: 2, done: false });
    expect(await q.next()).toEqual({ value: 3, done: false });
  });

  it('overflowing ends it once: buffer dropped, onEnd then onOverflow, next() rejects once then is done', async () => {
    const { q, calls } = queue(2);
    expect(q.push(1)).toBe(true);
    expect(q.push(2)).toBe(true);
    expect(q.push(3)).toBe(false);
    expect(q.push(4)).toBe(false);
    expect(q.open).toBe(false);
    expect(calls.ended).toBe(1);
    expect(calls.overflows).toHaveLength(1);
    expect(calls.overflows[0]).toBeInstanceOf(DomainError);
    expect(calls.overflows[0].code).toBe(ErrorCode.ServiceUnavailable);
    await expect(q.next()).rejects.toBe(calls.overflows[0]);
    expect(await q.next()).toEqual({ value: undefined, done: true });
  });

  it('a consumer that keeps up never overflows, however many values go through', async () => {
    const { q, calls } = queue(2);
    for (let i = 0; i < 1000; i += 1) {
      expect(q.push(i)).toBe(true);
      expect((await q.next()).value).toBe(i);
    }
    expect(calls.overflows).toHaveLength(0);
  });

  it('return() unregisters once, releases a waiting consumer and refuses further pushes', async () => {
    const { q, calls } = queue();
    const waiting = q.next();
    expect(await q.return()).toEqual({ value: undefined, done: true });
    expect(await waiting).toEqual({ value: undefined, done: true });
    await q.return();
    q.end();
    expect(calls.ended).toBe(1);
    expect(q.push(1)).toBe(false);
    expect(calls.overflows).toHaveLength(0);
  });

  it('works with for await, which calls return() when the loop breaks', async () => {
    const { q, calls } = queue();
    q.push(1);
    q.push(2);
    const seen: number[] = [];
    for await (const value of q) {
      seen.push(value);
      if (value === 2) break;
    }
    expect(seen).toEqual([1, 2]);
    expect(calls.ended).toBe(1);
  });
  it('attached: hands waiting then new values to the sink in order, and ends after limit not done', () => {
    const { q, calls } = queue(2);
    q.push(1);
    const sent: number[] = [];
    const dones: Array<() => void> = [];
    q.attach((value, done) => {
      sent.push(value);
      dones.push(done);
    });
    expect(sent).toEqual([1]);
    expect(q.push(2)).toBe(true);
    dones[0]();
    dones[0](); // a second done for the same message counts once
    expect(q.push(3)).toBe(true);
    expect(sent).toEqual([1, 2, 3]);
    // 2 and 3 are still outstanding: a fourth exceeds the limit and ends the stream.
    expect(q.push(4)).toBe(false);
    expect(sent).toEqual([1, 2, 3]);
    expect(calls.overflows).toHaveLength(1);
    expect(calls.ended).toBe(1);
  });

  it('fail() ends the stream with that error once, without onOverflow', async () => {
    const { q, calls } = queue();
    const error = new Error('execution failed');
    q.fail(error);
    q.fail(new Error('again'));
    expect(q.push(1)).toBe(false);
    await expect(q.next()).rejects.toBe(error);
    expect(await q.next()).toEqual({ value: undefined, done: true });
    expect(calls.overflows).toHaveLength(0);
  });
});
