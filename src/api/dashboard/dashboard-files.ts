import { join } from 'node:path';
import { PROJECT_ROOT } from '../../embedded/paths';
import { builtFiles } from '../built-files';

/** `npm run build` writes the page and its assets here. */
export const DASHBOARD_DIR = join(PROJECT_ROOT, 'dist', 'dashboard');

const files = builtFiles(DASHBOARD_DIR, {
  types: {
    '.js': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8',
    '.map': 'application/json; charset=utf-8',
    '.svg': 'image/svg+xml',
    '.html': 'text/html; charset=utf-8',
  },
  nested: true,
});

/** An asset by its path under `assets/`, or null for anything else (no `..`, no hidden files). */
export const readAsset = files.readAsset;
export const readPage = files.readPage;
