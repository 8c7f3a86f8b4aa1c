import { parseBlocklist, reviewPayout } from '../../src/domain/risk-rules';

const payout = {
  merchantId: 'mer_1',
  chain: 'BASE',
  asset: 'USDC',
  toAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  amount: '10.000000',
};

describe('risk review rules', () => {
  it('approves a payout no rule objects to, and says which rules ran', () => {
    const decision = reviewPayout(payout, { blocklist: new Set(), sandboxRejectAll: false });
    expect(decision.approved).toBe(true);
    expect(decision.rules.map((r) => r.rule)).toEqual([
      'destination_not_sanctioned',
      'destination_not_blocklisted',
      'sandbox_scenario',
    ]);
  });

  it('rejects a blocklisted destination whatever its letter case', () => {
    const blocklist = new Set([payout.toAddress.toLowerCase()]);
    const decision = reviewPayout(
      { ...payout, toAddress: payout.toAddress.toUpperCase().replace('0X', '0x') },
      { blocklist, sandboxRejectAll: false },
    );
    expect(decision.approved).toBe(false);
    expect(decision.rules.find((r) => !r.passed)?.rule).toBe('destination_not_blocklisted');
  });

  it('rejects a sanctioned destination in any letter case, with the sanctions flag reason', () => {
    const sanctioned = new Set([payout.toAddress.toLowerCase()]);
    const context = { blocklist: new Set<string>(), sandboxRejectAll: false, sanctioned };
    for (const toAddress of [payout.toAddress, payout.toAddress.toLowerCase()]) {
      const decision = reviewPayout({ ...payout, toAddress }, context);
      expect(decision).toMatchObject({ approved: false, flagReason: 'Sanctions screening' });
    }
    const blocked = reviewPayout(payout, {
      blocklist: new Set([payout.toAddress.toLowerCase()]),
      sandboxRejectAll: false,
    });
    expect(blocked.flagReason).toBeUndefined();
  });

  it('rejects everything when the sandbox scenario asks for it', () => {
    const decision = reviewPayout(payout, { blocklist: new Set(), sandboxRejectAll: true });
    expect(decision.approved).toBe(false);
    expect(decision.rules.find((r) => !r.passed)?.rule).toBe('sandbox_scenario');
  });
});

describe('blocklist file', () => {
  it('reads one address per line, ignoring blanks and comments, in lower case', () => {
    const list = parseBlocklist(
      `# sanctioned\n${payout.toAddress}\n\n  0x0000000000000000000000000000000000000001  # test\r\n`,
    );
    expect([...list]).toEqual([
      payout.toAddress.toLowerCase(),
      '0x0000000000000000000000000000000000000001',
    ]);
  });

  it('names the line that is not an address', () => {
    expect(() =>
      parseBlocklist('0x0000000000000000000000000000000000000001\nnot-an-address'),
    ).toThrow('blocklist line 2');
  });
});
