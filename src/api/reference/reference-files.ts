import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { PROJECT_ROOT } from '../../embedded/paths';

/** `npm run build` writes each page (`docs`, `graphiql`) and its assets under here. */
export const REFERENCE_DIR = join(PROJECT_ROOT, 'dist', 'reference');

export type ReferencePage = 'docs' | 'graphiql';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
};
const ASSET_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** A file of `page`'s assets folder by name, or null for anything else (no paths, no dotfiles). */
export async function readReferenceAsset(
  page: ReferencePage,
  name: string,
): Promise<{ body: Buffer; contentType: string } | null> {
  const contentType = TYPES[extname(name)];
  if (!ASSET_NAME.test(name) || !contentType) return null;
  const root = join(REFERENCE_DIR, page, 'assets');
  const path = normalize(join(root, name));
  if (!path.startsWith(root + sep)) return null;
  try {
    return { body: await readFile(path), contentType };
  } catch {
    return null;
  }
}

export async function readReferencePage(page: ReferencePage): Promise<Buffer | null> {
  try {
    return await readFile(join(REFERENCE_DIR, page, 'index.html'));
  } catch {
    return null;
  }
}
