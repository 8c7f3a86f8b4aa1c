import { join } from 'node:path';
import { PROJECT_ROOT } from '../../embedded/paths';
import { builtFiles } from '../built-files';

/** `npm run build` writes each page (`docs`, `graphiql`) and its assets under here. */
export const REFERENCE_DIR = join(PROJECT_ROOT, 'dist', 'reference');

export type ReferencePage = 'docs' | 'graphiql';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
};
const files = {
  docs: builtFiles(join(REFERENCE_DIR, 'docs'), { types: TYPES, nested: false }),
  graphiql: builtFiles(join(REFERENCE_DIR, 'graphiql'), { types: TYPES, nested: false }),
};

/** A file of `page`'s assets folder by name, or null for anything else (no paths, no dotfiles). */
export function readReferenceAsset(
  page: ReferencePage,
  name: string,
): Promise<{ body: Buffer; contentType: string } | null> {
  return files[page].readAsset(name);
}

export function readReferencePage(page: ReferencePage): Promise<Buffer | null> {
  return files[page].readPage();
}
