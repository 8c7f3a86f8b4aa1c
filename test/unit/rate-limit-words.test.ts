import { retryInWords } from '../../src/api/rate-limit';

/** The 429 message's wait, worded as @fastify/rate-limit words it (`@lukeed/ms`'s long form). */
describe('retryInWords', () => {
  it.each([
    [1, '1 second'],
    [2, '2 seconds'],
    [42, '42 seconds'],
    [59, '59 seconds'],
    [60, '1 minute'],
  ])('%i s -> %s', (seconds, words) => {
    expect(retryInWords(seconds)).toBe(words);
  });
});
