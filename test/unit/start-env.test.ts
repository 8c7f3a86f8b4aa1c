import { childEnvironment } from '../../src/cli/start-env';

describe('the environment npm start gives the gateway and the job runner', () => {
  it('sandbox: private webhook receivers allowed unless the operator says no', () => {
    expect(childEnvironment('sandbox', {}, {}).WEBHOOK_ALLOW_PRIVATE).toBe('true');
    expect(
      childEnvironment('sandbox', { WEBHOOK_ALLOW_PRIVATE: 'false' }, {}).WEBHOOK_ALLOW_PRIVATE,
    ).toBe('false');
  });

  it('production: never allows private receivers by itself, keeps an explicit value', () => {
    const env = childEnvironment('production', { PATH: '/bin' }, { DATABASE_URL: 'postgres://x' });
    expect(env.WEBHOOK_ALLOW_PRIVATE).toBeUndefined();
    expect(env).toEqual({ NODE_ENV: 'production', PATH: '/bin', DATABASE_URL: 'postgres://x' });
    expect(
      childEnvironment('production', { WEBHOOK_ALLOW_PRIVATE: 'true' }, {}).WEBHOOK_ALLOW_PRIVATE,
    ).toBe('true');
  });

  it('the overrides (database, local chains, key file) replace the operator’s values', () => {
    const env = childEnvironment('sandbox', { DATABASE_URL: 'a', X: '1' }, { DATABASE_URL: 'b' });
    expect(env).toMatchObject({ DATABASE_URL: 'b', X: '1' });
  });
});
