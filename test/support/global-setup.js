'use strict';
// Builds dist/ (e2e tests run the real processes), starts one embedded PostgreSQL for the run in
// a temporary directory, and prepares a migrated template database that test files clone.
const { execFileSync } = require('node:child_process');
const { mkdtempSync, writeFileSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..', '..');
const STATE_FILE = join(tmpdir(), `onramp-jest-${process.pid}.json`);

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

module.exports = async function globalSetup() {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.js')], {
    cwd: root,
    stdio: 'inherit',
  });
  const { spawnEmbeddedPostgres } = require(join(root, 'dist', 'src', 'embedded', 'pg-process.js'));
  const dataDir = mkdtempSync(join(tmpdir(), 'onramp-test-pg-'));
  const postgres = await spawnEmbeddedPostgres({
    dataDir,
    port: await freePort(),
    database: 'onramp_template',
    persistent: false,
  });
  execFileSync(process.execPath, [join(root, 'bin', 'onramp.js'), 'db', 'migrate'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: postgres.url, LOG_LEVEL: 'silent' },
    stdio: 'pipe',
  });
  globalThis.__ONRAMP_PG__ = postgres;
  process.env.TEST_PG_ADMIN_URL = postgres.adminUrl;
  process.env.TEST_PG_TEMPLATE = 'onramp_template';
  writeFileSync(STATE_FILE, JSON.stringify({ adminUrl: postgres.adminUrl, dataDir }));
};
