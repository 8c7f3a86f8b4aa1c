// The artifact is checked in so start-up never runs the compiler; this keeps it honest: a fresh
// compile of contracts/StableToken.sol (same function as `npm run contracts`) must reproduce it.
import { readFileSync } from 'node:fs';
import { privateKeyToAccount } from 'viem/accounts';
import {
  STABLE_TOKEN_ABI,
  STABLE_TOKEN_ARTIFACT_FILE,
  STABLE_TOKEN_BYTECODE,
} from '../../src/adapters/chain/stable-token';
import {
  LOCAL_DEPLOYER_PRIVATE_KEY,
  LOCAL_HOT_WALLET_PRIVATE_KEY,
  LOCAL_TOKEN_ADDRESSES,
} from '../../src/embedded/local-chains';

interface Artifact {
  contractName: string;
  solcVersion: string;
  sourceSha256: string;
  abi: unknown[];
  bytecode: string;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const compiler = require('../../scripts/compile-contracts.js') as {
  compileStableToken(): { artifact: Artifact; warnings: string[] };
  formatArtifact(artifact: Artifact): string;
};

const checkedInText = readFileSync(STABLE_TOKEN_ARTIFACT_FILE, 'utf8');
const checkedIn = JSON.parse(checkedInText) as Artifact;

describe('contracts/artifacts/StableToken.json', () => {
  // solc (emscripten) takes about a second.
  const fresh = compiler.compileStableToken();

  it('matches a fresh compile of contracts/StableToken.sol (run npm run contracts if not)', () => {
    expect(checkedIn.sourceSha256).toBe(fresh.artifact.sourceSha256);
    expect(checkedIn.solcVersion).toBe(fresh.artifact.solcVersion);
    expect(checkedIn.abi).toEqual(fresh.artifact.abi);
    expect(checkedIn.bytecode).toBe(fresh.artifact.bytecode);
    expect(checkedInText).toBe(compiler.formatArtifact(fresh.artifact));
  });

  it('compiles without warnings', () => {
    expect(fresh.warnings).toEqual([]);
  });

  it('is what the code deploys and calls', () => {
    expect(STABLE_TOKEN_ABI).toEqual(checkedIn.abi);
    expect(STABLE_TOKEN_BYTECODE).toBe(checkedIn.bytecode);
  });
});

describe('local chain accounts', () => {
  it('are anvil dev accounts #0 (hot wallet) and #1 (deployer)', () => {
    expect(privateKeyToAccount(LOCAL_HOT_WALLET_PRIVATE_KEY).address).toBe(
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    );
    expect(privateKeyToAccount(LOCAL_DEPLOYER_PRIVATE_KEY).address).toBe(
      '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    );
  });

  it('put the tokens at the addresses of the deployer nonces 0 and 1', () => {
    // Not the 0x5FbDB... addresses familiar from Foundry tutorials: those are account #0's.
    expect(LOCAL_TOKEN_ADDRESSES).toEqual({
      USDC: '0x8464135c8F25Da09e49BC8782676a84730C318bC',
      USDT: '0x71C95911E9a5D330f4D621842EC243EE1343292e',
    });
  });
});
