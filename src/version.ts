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
