import {
  parseSanctionsList,
  SANCTIONS_LIST_LIMITS,
  SanctionsListError,
  sanctionsKey,
} from '../../src/domain/sanctions-list';

// EIP-55's own test vectors (not sanctioned addresses: the parser does not care which).
const CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const OTHER = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

function refusal(text: string): SanctionsListError {
  try {
    parseSanctionsList(text);
  } catch (error) {
    if (error instanceof SanctionsListError) return error;
    throw error;
  }
  throw new Error('the list was accepted');
}

describe('sanctions list file', () => {
  it('reads one address per line, skipping blank lines and comments, in lower case, each once', () => {
    const list = parseSanctionsList(
      [
        '# OFAC SDN, EVM entries',
        '',
        `  ${CHECKSUMMED}  # a trailing comment`,
        '\t',
        `${OTHER}\r`,
        CHECKSUMMED.toLowerCase(),
      ].join('\n'),
    );
    expect(list).toEqual({
      addresses: [CHECKSUMMED.toLowerCase(), OTHER.toLowerCase()],
      listDate: null,
    });
  });

  it('accepts lower case, upper-case hex and EIP-55 checksum form as the same address', () => {
    const upper = `0x${CHECKSUMMED.slice(2).toUpperCase()}`;
    for (const form of [CHECKSUMMED, CHECKSUMMED.toLowerCase(), upper]) {
      expect(parseSanctionsList(`${form}\n`).addresses).toEqual([CHECKSUMMED.toLowerCase()]);
    }
    expect(parseSanctionsList(`${CHECKSUMMED}\n${upper}\n`).addresses).toHaveLength(1);
    expect(sanctionsKey(upper)).toBe(sanctionsKey(CHECKSUMMED));
  });

  it('takes the list date from a "# date:" comment', () => {
    expect(parseSanctionsList(`# date: 2024-09-27\n${OTHER}\n`).listDate).toBe('2024-09-27');
    expect(refusal(`# date: 2024-02-30\n${OTHER}\n`).message).toMatch(/line 1: .*not YYYY-MM-DD/);
  });

  it('refuses the whole file for one bad line, naming it', () => {
    const bad = refusal(`${CHECKSUMMED}\n\n${OTHER}\n0x1234 not an address\n`);
    expect(bad.line).toBe(4);
    expect(bad.message).toMatch(/^line 4: "0x1234 not an address" is not an EVM address/);
    expect(refusal(`${CHECKSUMMED}\n${CHECKSUMMED.slice(0, -1)}\n`).line).toBe(2);
    // Nothing before the bad line survives: the parser returns a list or nothing.
    expect(refusal(`${OTHER}\nbc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh\n`).line).toBe(2);
  });

  it('refuses mixed case that fails its checksum (a mistyped address)', () => {
    const mistyped = CHECKSUMMED.replace('aA', 'Aa');
    const bad = refusal(`${OTHER}\n${mistyped}\n`);
    expect(bad).toMatchObject({ line: 2 });
    expect(bad.message).toMatch(/fails its EIP-55 checksum/);
  });

  it('refuses a file past the line limit at the first line over it, without reading on', () => {
    const atLimit = `${OTHER}\n`.repeat(SANCTIONS_LIST_LIMITS.maxLines);
    expect(parseSanctionsList(atLimit).addresses).toEqual([OTHER.toLowerCase()]);
    const million = '\n'.repeat(1_000_000);
    const started = process.hrtime.bigint();
    const bad = refusal(million);
    expect(bad.line).toBe(SANCTIONS_LIST_LIMITS.maxLines + 1);
    expect(bad.message).toMatch(/more than 100,000 lines/);
    // Stops at the limit: a tenth of the file scanned, well under a second on any machine.
    expect(Number(process.hrtime.bigint() - started) / 1e9).toBeLessThan(5);
  });

  it('refuses a very long line at once', () => {
    expect(refusal(`${OTHER}\n${'0'.repeat(5000)}\n`)).toMatchObject({ line: 2 });
  });

  it('an empty file is an empty list', () => {
    expect(parseSanctionsList('')).toEqual({ addresses: [], listDate: null });
    expect(parseSanctionsList('# nothing listed\n\n')).toEqual({ addresses: [], listDate: null });
  });
});
