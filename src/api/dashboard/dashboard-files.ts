import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { PROJECT_ROOT } from '../../embedded/paths';

/** `npm run build` writes the page and its assets here. */
export const DASHBOARD_DIR = join(PROJECT_ROOT, 'dist', 'dashboard');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.html': 'text/html; charset=utf-8',
};
const ASSET_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*(\/[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*)*$/;

/** An asset by its path under `assets/`, or null for anything else (no `..`, no hidden files). */
export async function readAsset(
  name: string,
): Promise<{ body: Buffer; contentType: string } | null> {
  const contentType = TYPES[extname(name)];
  if (!ASSET_NAME.test(name) || !contentType) return null;
  const root = join(DASHBOARD_DIR, 'assets');
  const path = normalize(join(root, name));
  if (!path.startsWith(root + sep)) return null;
  try {
    return { body: await readFile(path), contentType };
  } catch {
    return null;
  }
}

export async function readPage(): Promise<Buffer | null> {
  try {
    return await readFile(join(DASHBOARD_DIR, 'index.html'));
  } catch {
    return null;
  }
}
