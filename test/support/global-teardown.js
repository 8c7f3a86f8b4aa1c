'use strict';
const { rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

module.exports = async function globalTeardown() {
  const postgres = globalThis.__ONRAMP_PG__;
  if (postgres) await postgres.stop();
  rmSync(join(tmpdir(), `onramp-jest-${process.pid}.json`), { force: true });
};
