#!/usr/bin/env node
// Lints docs/openapi.json with Redocly's recommended rules (redocly.yaml). Prints one line per
// problem and, last, a JSON summary line; exits 1 when there is an error.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { lint, loadConfig } from '@redocly/openapi-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const config = await loadConfig({ configPath: join(root, 'redocly.yaml') });
const file = process.argv[2] ?? join(root, 'docs', 'openapi.json');
const problems = await lint({ ref: file, config });
for (const p of problems) {
  const where = p.location?.[0]?.pointer ?? '';
  process.stdout.write(`${p.severity} ${p.ruleId} ${where}: ${p.message}\n`);
}
const count = (severity) => problems.filter((p) => p.severity === severity).length;
const summary = { errors: count('error'), warnings: count('warn') };
process.stdout.write(`${JSON.stringify(summary)}\n`);
process.exit(summary.errors > 0 ? 1 : 0);
