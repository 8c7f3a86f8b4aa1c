import { DEFAULT_HEAP_MB, serviceNodeFlags } from '../../src/cli/node-flags';

describe('the service processes heap cap', () => {
  it('is 128 MB unless ONRAMP_HEAP_MB asks for another whole number of at least 64', () => {
    expect(DEFAULT_HEAP_MB).toBe(128);
    expect(serviceNodeFlags({})).toEqual(['--max-old-space-size=128']);
    expect(serviceNodeFlags({ ONRAMP_HEAP_MB: '512' })).toEqual(['--max-old-space-size=512']);
    for (const bad of ['', 'lots', '12', '128.5', '-1', '0x100']) {
      expect(serviceNodeFlags({ ONRAMP_HEAP_MB: bad })).toEqual(['--max-old-space-size=128']);
    }
  });
});
