#!/usr/bin/env node
'use strict';
// Compiles src/ and jobs/ to dist/ with the TypeScript compiler, and bundles the merchant
// dashboard (dashboard/src, with graphql-ws's client) into one script with esbuild, next to its
// page and styles in dist/dashboard/; likewise /docs and /graphiql into dist/reference/. esbuild's binary comes in an optional npm package for the
// platform (@esbuild/linux-x64 and so on), found without esbuild's install script, so
// `npm ci --ignore-scripts` (the Dockerfile) builds too. Builds into a temporary folder and swaps
// it in, so processes started from dist/ by a concurrent run never find it half-written or
// missing.
const { execFileSync } = require('node:child_process');
const { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const staging = join(root, `.dist-build-${process.pid}`);
const retired = join(root, `.dist-old-${process.pid}`);
try {
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', staging],
    { cwd: root, stdio: 'inherit' },
  );
  buildDashboard(join(staging, 'dashboard'));
  buildReference(join(staging, 'reference'));
  writeBuildInfo(staging);
  copySanctionsSnapshot(join(staging, 'data', 'sanctions'));
  try {
    renameSync(join(root, 'dist'), retired);
  } catch {
    // no previous build
  }
  renameSync(staging, join(root, 'dist'));
} finally {
  rmSync(staging, { recursive: true, force: true });
  rmSync(retired, { recursive: true, force: true });
}

/**
 * dashboard/src/app.ts and everything it imports -> <out>/assets/app.js (one ES module with its
 * source map), plus index.html and assets/styles.css. Type checking stays with tsc
 * (`npm run typecheck` runs dashboard/tsconfig.json): esbuild only strips the types.
 */
function buildDashboard(out) {
  const assets = join(out, 'assets');
  mkdirSync(assets, { recursive: true });
  require('esbuild').buildSync({
    absWorkingDir: root,
    entryPoints: [join('dashboard', 'src', 'app.ts')],
    outfile: join(assets, 'app.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    tsconfig: join('dashboard', 'tsconfig.json'),
    minify: true,
    // Served from the gateway with the bundle; only a browser's developer tools fetch it.
    sourcemap: 'linked',
    // The licence notices of what is bundled (graphql-ws) stay in the file, at its end.
    legalComments: 'eof',
    logLevel: 'warning',
  });
  copyFileSync(join(root, 'dashboard', 'index.html'), join(out, 'index.html'));
  copyFileSync(join(root, 'dashboard', 'styles.css'), join(assets, 'styles.css'));
}

/**
 * The pages /docs and /graphiql serve (reference/): Swagger UI's own prebuilt files from
 * swagger-ui-dist (copied as they are) with a small start script, and GraphiQL (React and
 * graphql-ws's client included) bundled into one script and one stylesheet. Both are dev
 * dependencies: only these files reach the runtime image.
 */
function buildReference(out) {
  const docs = join(out, 'docs', 'assets');
  const graphiql = join(out, 'graphiql', 'assets');
  mkdirSync(docs, { recursive: true });
  mkdirSync(graphiql, { recursive: true });
  const swaggerUi = join(require.resolve('swagger-ui-dist/package.json'), '..');
  for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
    copyFileSync(join(swaggerUi, file), join(docs, file));
  }
  const common = {
    absWorkingDir: root,
    bundle: true,
    platform: 'browser',
    target: 'es2020',
    tsconfig: join('reference', 'tsconfig.json'),
    minify: true,
    sourcemap: 'linked',
    legalComments: 'eof',
    logLevel: 'warning',
  };
  const esbuild = require('esbuild');
  esbuild.buildSync({
    ...common,
    entryPoints: [join('reference', 'src', 'docs.ts')],
    outfile: join(docs, 'docs.js'),
    format: 'iife',
  });
  esbuild.buildSync({
    ...common,
    entryPoints: [join('reference', 'src', 'graphiql.ts')],
    // graphiql.js, and graphiql.css from the stylesheets it imports.
    outfile: join(graphiql, 'graphiql.js'),
    format: 'esm',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  copyFileSync(join(root, 'reference', 'docs.html'), join(out, 'docs', 'index.html'));
  copyFileSync(join(root, 'reference', 'graphiql.html'), join(out, 'graphiql', 'index.html'));
}

/**
 * <out>/build-info.json: the commit built, for `onramp_build_info` (src/version.ts). Left out
 * when the source is not a git checkout (an image built from a copied tree): then the
 * ONRAMP_COMMIT variable names it, or the label stays empty.
 */
function writeBuildInfo(out) {
  let commit;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
  } catch {
    return;
  }
  require('node:fs').writeFileSync(join(out, 'build-info.json'), `${JSON.stringify({ commit })}\n`);
}

/**
 * The shipped sanctions snapshot beside the compiled code, where src/sanctions/sanctions-file.ts
 * finds it from dist/src/ (and the image, which copies dist/ only): data/sanctions/ in the
 * repository, else the same path in the shared/ folder laid beside it (where data brought in
 * from public repositories is kept). Without either the processes start and warn.
 */
function copySanctionsSnapshot(out) {
  const candidates = [
    join(root, 'data', 'sanctions', 'ofac-sdn-evm.txt'),
    join(root, '..', 'shared', 'data', 'sanctions', 'ofac-sdn-evm.txt'),
  ];
  const snapshot = candidates.find((path) => existsSync(path));
  if (!snapshot) {
    process.stderr.write(`build: no sanctions snapshot (${candidates.join(', ')}); none ships\n`);
    return;
  }
  mkdirSync(out, { recursive: true });
  copyFileSync(snapshot, join(out, 'ofac-sdn-evm.txt'));
}
