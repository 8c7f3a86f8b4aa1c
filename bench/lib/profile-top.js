#!/usr/bin/env node
'use strict';
// `node bench/lib/profile-top.js FILE.cpuprofile [N]`: the functions with the most self time
// (and the files that hold them), from a V8 CPU profile written with --cpu-prof.
const { readFileSync } = require('node:fs');

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const top = Number(process.argv[3] ?? 25);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const deltas = profile.timeDeltas;
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const byFunction = new Map();
const byFile = new Map();
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const file = url.replace(/^.*node_modules\//, 'nm/').replace(/^file:\/\/.*\/(dist|src)\//, '$1/');
  const key = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  const pkg = file.startsWith('nm/')
    ? file
        .split('/')
        .slice(0, file.startsWith('nm/@') ? 3 : 2)
        .join('/')
    : file || '(native)';
  byFile.set(pkg, (byFile.get(pkg) ?? 0) + us);
}
const show = (title, map) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
  }
};
show('self time by function', byFunction);
show('self time by package or file', byFile);
