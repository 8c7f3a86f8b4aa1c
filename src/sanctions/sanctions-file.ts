import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  parseSanctionsList,
  SANCTIONS_LIST_LIMITS,
  SanctionsListError,
} from '../domain/sanctions-list';
import { submissionOf, type ListSubmission } from './sanctions.service';

/**
 * The shipped snapshot: `npm run build` copies data/sanctions/ofac-sdn-evm.txt (or the same
 * path under the shared/ folder beside the repository) to dist/data/sanctions/
 * (scripts/build.js), where the processes and the image find it from dist/src/.
 */
export const SHIPPED_SNAPSHOT_PATH = join(
  __dirname,
  '..',
  '..',
  'data',
  'sanctions',
  'ofac-sdn-evm.txt',
);

/** Parses text already in memory (admin GraphQL) with the same rules and limits as a file. */
export function submissionOfText(text: string, description: string): ListSubmission {
  if (Buffer.byteLength(text) > SANCTIONS_LIST_LIMITS.maxBytes) throw tooLarge();
  return submissionOf(parseSanctionsList(text), text, description);
}

/**
 * Reads and parses a list file. Its size is checked before it is read: a file over
 * `maxBytes` is refused without reading it, so no file can take more memory than that.
 */
export async function readSanctionsFile(path: string, description = path): Promise<ListSubmission> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new SanctionsListError(`${path} is not a file`, null);
    size = info.size;
  } catch (error) {
    if (error instanceof SanctionsListError) throw error;
    throw new SanctionsListError(`cannot read ${path}: ${(error as Error).message}`, null);
  }
  if (size > SANCTIONS_LIST_LIMITS.maxBytes) throw tooLarge();
  const text = await readFile(path, 'utf8');
  return submissionOf(parseSanctionsList(text), text, description);
}

function tooLarge(): SanctionsListError {
  return new SanctionsListError(
    `the list is larger than ${SANCTIONS_LIST_LIMITS.maxBytes.toLocaleString('en-US')} bytes (the maximum)`,
    null,
  );
}
