import { parseEther } from 'viem';
import { loadConfig } from '../../src/config';
import { chainRpcUrls, FINALITY_CONFIRMATIONS } from '../../src/config-chains';
import {
  lowAssets,
  lowBalanceThresholds,
  payableNow,
  type WalletHoldings,
} from '../../src/domain/hot-wallet-funds';

describe('chain settings (issue 35)', () => {
  it('defaults confirmations from finality guidance, and takes a set value', () => {
    const config = loadConfig({});
    expect(config.BASE_CONFIRMATIONS).toBe(60);
    expect(config.ETHEREUM_CONFIRMATIONS).toBe(64);
    expect(config.POLYGON_CONFIRMATIONS).toBe(32);
    expect(FINALITY_CONFIRMATIONS).toEqual({ BASE: 60, ETHEREUM: 64, POLYGON: 32 });
    expect(loadConfig({ POLYGON_CONFIRMATIONS: '3' }).POLYGON_CONFIRMATIONS).toBe(3);
  });

  it('reads several nodes from <CHAIN>_RPC_URLS, the one node from <CHAIN>_RPC_URL, never both', () => {
    const many = loadConfig({ BASE_RPC_URLS: 'http://a.example:8545, https://b.example/v1/key ,' });
    expect(chainRpcUrls(many, 'BASE')).toEqual([
      'http://a.example:8545',
      'https://b.example/v1/key',
    ]);
    expect(chainRpcUrls(loadConfig({ BASE_RPC_URL: 'http://one:1' }), 'BASE')).toEqual([
      'http://one:1',
    ]);
    expect(chainRpcUrls(loadConfig({}), 'BASE')).toEqual([]);
    expect(() =>
      loadConfig({ BASE_RPC_URL: 'http://one:1', BASE_RPC_URLS: 'http://two:2' }),
    ).toThrow(/BASE_RPC_URLS: set BASE_RPC_URLS or BASE_RPC_URL, not both/);
    expect(() => loadConfig({ POLYGON_RPC_URLS: 'http://ok:1,ftp://no' })).toThrow(
      /POLYGON_RPC_URLS: ftp:\/\/no is not an http\(s\) URL/,
    );
  });
});

describe('hot-wallet funds', () => {
  const held: WalletHoldings = {
    native: parseEther('0.02'),
    tokens: { USDC: 100_000_000n, USDT: 5_000_000n },
  };
  const gas = parseEther('0.005');
  const none = { transfers: 0, tokens: { USDC: 0n, USDT: 0n } };

  it('pays in order what gas and tokens cover, counting payouts in flight; a smaller later one may go', () => {
    const waiting = [
      { id: 'a', asset: 'USDC' as const, amountBaseUnits: 60_000_000n },
      { id: 'b', asset: 'USDT' as const, amountBaseUnits: 6_000_000n }, // more USDT than held
      { id: 'c', asset: 'USDC' as const, amountBaseUnits: 50_000_000n }, // 40 left after a
      { id: 'd', asset: 'USDC' as const, amountBaseUnits: 40_000_000n },
    ];
    const now = payableNow(held, none, gas, waiting);
    expect(now.payable).toEqual(['a', 'd']);
    expect(now.held.map((p) => p.id)).toEqual(['b', 'c']);
    // Three transfers in flight take 0.015 of the 0.02: gas for one more only.
    const busy = payableNow(held, { transfers: 3, tokens: { USDC: 0n, USDT: 0n } }, gas, waiting);
    expect(busy.payable).toEqual(['a']);
    // Tokens already promised to payouts in flight are not there to pay.
    const promised = payableNow(
      held,
      { transfers: 0, tokens: { USDC: 90_000_000n, USDT: 0n } },
      gas,
      waiting,
    );
    expect(promised.payable).toEqual([]);
  });

  it('reports each asset below its threshold', () => {
    const thresholds = lowBalanceThresholds(
      loadConfig({ BASE_HOT_WALLET_MIN_GAS: '0.05', HOT_WALLET_MIN_TOKEN_BALANCE: '10' }),
      'BASE',
    );
    expect(thresholds).toEqual({ nativeWei: parseEther('0.05'), tokenUnits: 10_000_000n });
    expect(lowAssets(held, thresholds)).toEqual(['native', 'USDT']);
    expect(
      lowAssets(
        { native: parseEther('1'), tokens: { USDC: 10_000_000n, USDT: 10_000_000n } },
        thresholds,
      ),
    ).toEqual([]);
  });
});
