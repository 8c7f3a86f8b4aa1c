import { basename, join, resolve } from 'node:path';

/** This file runs from `src/embedded` (tests) or `dist/src/embedded` (built processes). */
const twoUp = resolve(__dirname, '..', '..');
export const PROJECT_ROOT = basename(twoUp) === 'dist' ? resolve(twoUp, '..') : twoUp;

/** Local state of the embedded default lives under `.data/` at the project root. */
export const DATA_DIR = join(PROJECT_ROOT, '.data');
export const PG_DATA_DIR = join(DATA_DIR, 'postgres');
export const LOG_DIR = join(DATA_DIR, 'logs');
export const SANDBOX_CREDENTIALS_FILE = join(DATA_DIR, 'sandbox-merchant.json');
/** Written by `npm start` so the `onramp` command line finds the embedded database. */
export const EMBEDDED_STATE_FILE = join(DATA_DIR, 'embedded.json');
/** One anvil state file per local chain (`npm start` without RPC URLs); delete it to reset. */
export const CHAIN_DATA_DIR = join(DATA_DIR, 'chains');
