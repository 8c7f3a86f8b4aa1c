import { isRetryableConflict, retryOnConflict } from '../../src/db/retry';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe('retryOnConflict', () => {
  it('reruns after an exclusion violation, serialization failure or deadlock', async () => {
    for (const code of ['23P01', '40001', '40P01']) {
      let calls = 0;
      const result = await retryOnConflict(async () => {
        calls += 1;
        if (calls < 3) throw pgError(code);
        return 'done';
      });
      expect({ code, result, calls }).toEqual({ code, result: 'done', calls: 3 });
    }
  });

  it('finds the SQLSTATE on a wrapped driver error', () => {
    expect(isRetryableConflict({ sqlState: '23P01' })).toBe(true);
    expect(
      isRetryableConflict(Object.assign(new Error('wrapped'), { cause: pgError('40P01') })),
    ).toBe(true);
    expect(isRetryableConflict(pgError('23505'))).toBe(false);
    expect(isRetryableConflict(null)).toBe(false);
  });

  it('does not retry other errors, and gives up after the last attempt', async () => {
    let calls = 0;
    await expect(
      retryOnConflict(async () => {
        calls += 1;
        throw pgError('23505');
      }),
    ).rejects.toThrow('pg 23505');
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      retryOnConflict(async () => {
        calls += 1;
        throw pgError('40001');
      }, 4),
    ).rejects.toThrow('pg 40001');
    expect(calls).toBe(4);
  });
});
