import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const SEGMENT = '[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*';
const FLAT_NAME = new RegExp(`^${SEGMENT}$`);
const NESTED_NAME = new RegExp(`^${SEGMENT}(\\/${SEGMENT})*$`);

/**
 * A browser page the build wrote under `dir` (`index.html`, and its `assets/`), read for the
 * gateway to serve: the dashboard and the reference pages. An asset is found only by a name of
 * plain segments (no `..`, no hidden files, nested folders only where `nested`) with a known
 * type; anything else is null, as is a file the build did not write.
 */
export function builtFiles(
  dir: string,
  options: { types: Record<string, string>; nested: boolean },
) {
  const assets = join(dir, 'assets');
  const names = options.nested ? NESTED_NAME : FLAT_NAME;
  return {
    async readAsset(name: string): Promise<{ body: Buffer; contentType: string } | null> {
      const contentType = options.types[extname(name)];
      if (!names.test(name) || !contentType) return null;
      const path = normalize(join(assets, name));
      if (!path.startsWith(assets + sep)) return null;
      try {
        return { body: await readFile(path), contentType };
      } catch {
        return null;
      }
    },
    async readPage(): Promise<Buffer | null> {
      try {
        return await readFile(join(dir, 'index.html'));
      } catch {
        return null;
      }
    },
  };
}
