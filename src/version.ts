// Read once at start-up; package.json sits two levels above both src/ and dist/src/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function findVersion(): string {
  for (const up of ['..', '../..']) {
    try {
      return JSON.parse(readFileSync(join(__dirname, up, 'package.json'), 'utf8'))
        .version as string;
    } catch {
      // try the next level
    }
  }
  return '0.0.0';
}

export const VERSION = findVersion();

/**
 * The commit this build came from, as `npm run build` recorded it in dist/build-info.json; ''
 * when it could not (no git checkout: then ONRAMP_COMMIT names it, see src/metrics/build-info.ts).
 */
function findCommit(): string {
  try {
    const info = JSON.parse(readFileSync(join(__dirname, '..', 'build-info.json'), 'utf8'));
    return typeof info.commit === 'string' ? info.commit : '';
  } catch {
    return '';
  }
}

export const BUILT_COMMIT = findCommit();
