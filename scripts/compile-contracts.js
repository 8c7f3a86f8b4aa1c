#!/usr/bin/env node
'use strict';
// Compiles contracts/StableToken.sol with the pinned `solc` npm package (pure JavaScript, no
// platform binary) and writes contracts/artifacts/StableToken.json, which is checked in so that
// start-up never needs the compiler. test/unit/contract-artifact.test.ts recompiles with
// compileStableToken() and fails if the checked-in artifact drifted from the source.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const solc = require('solc');

const root = join(__dirname, '..');
const CONTRACT_NAME = 'StableToken';
// The source unit name goes into the bytecode's metadata hash: keep it independent of where the
// repository is checked out, so every machine produces the same bytes.
const SOURCE_UNIT = `contracts/${CONTRACT_NAME}.sol`;
const SOURCE_FILE = join(root, SOURCE_UNIT);
const ARTIFACT_FILE = join(root, 'contracts', 'artifacts', `${CONTRACT_NAME}.json`);

function compileStableToken() {
  const source = readFileSync(SOURCE_FILE, 'utf8');
  const input = {
    language: 'Solidity',
    sources: { [SOURCE_UNIT]: { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      // Cancun: accepted by every chain we pay out on (newer defaults may emit opcodes they lack).
      evmVersion: 'cancun',
      outputSelection: { [SOURCE_UNIT]: { [CONTRACT_NAME]: ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const problems = output.errors ?? [];
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const warnings = problems.map((problem) => problem.formattedMessage);
  const contract = output.contracts[SOURCE_UNIT][CONTRACT_NAME];
  return {
    artifact: {
      contractName: CONTRACT_NAME,
      solcVersion: solc.version(),
      sourceSha256: createHash('sha256').update(source).digest('hex'),
      abi: contract.abi,
      bytecode: `0x${contract.evm.bytecode.object}`,
    },
    warnings,
  };
}

/** The artifact file's exact text: 2-space JSON with a trailing newline. */
function formatArtifact(artifact) {
  return `${JSON.stringify(artifact, null, 2)}\n`;
}

module.exports = { compileStableToken, formatArtifact, ARTIFACT_FILE, SOURCE_FILE };

if (require.main === module) {
  const { artifact, warnings } = compileStableToken();
  for (const warning of warnings) process.stderr.write(`${warning}\n`);
  mkdirSync(join(root, 'contracts', 'artifacts'), { recursive: true });
  writeFileSync(ARTIFACT_FILE, formatArtifact(artifact));
  process.stdout.write(
    `wrote ${ARTIFACT_FILE} (${(artifact.bytecode.length - 2) / 2} bytes of bytecode)\n`,
  );
}
