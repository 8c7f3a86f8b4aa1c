import { spawnSync } from 'node:child_process';
import { DEFAULT_HEAP_MB, SEMI_SPACE_MB, serviceNodeFlags } from '../../src/cli/node-flags';

const young = '--max-semi-space-size=16';

describe('the service processes heap cap', () => {
  it('is 128 MB unless ONRAMP_HEAP_MB asks for another whole number of at least 64', () => {
    expect(DEFAULT_HEAP_MB).toBe(128);
    expect(serviceNodeFlags({})).toEqual(['--max-old-space-size=128', young]);
    expect(serviceNodeFlags({ ONRAMP_HEAP_MB: '512' })).toEqual([
      '--max-old-space-size=512',
      young,
    ]);
    for (const bad of ['', 'lots', '12', '128.5', '-1', '0x100']) {
      expect(serviceNodeFlags({ ONRAMP_HEAP_MB: bad })).toEqual([
        '--max-old-space-size=128',
        young,
      ]);
    }
  });

  it('sizes the young generation on its own, whatever the cap (Node 24 ties it to the cap)', () => {
    expect(SEMI_SPACE_MB).toBe(16);
    expect(serviceNodeFlags({ ONRAMP_HEAP_MB: '64' })).toContain(young);
  });

  it('is a flag this Node accepts', () => {
    const { status, stderr } = spawnSync(process.execPath, [...serviceNodeFlags({}), '-e', '0'], {
      encoding: 'utf8',
    });
    expect(stderr).toBe('');
    expect(status).toBe(0);
  });
});
