#!/usr/bin/env node
'use strict';
// `node bench/lib/profile-top.js FILE.cpuprofile [N]`: the functions with the most self time
// (and the files that hold them), then the most inclusive time (the function or file anywhere
// on the sampled stack, counted once per sample), from a V8 CPU profile written with --cpu-prof
// or bench/lib/cpu-profile-preload.js. Percentages are of all samples, idle included.
const { readFileSync } = require('node:fs');

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const top = Number(process.argv[3] ?? 25);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parent.set(child, node.id);

const fileOf = (url) =>
  url.replace(/^.*node_modules\//, 'nm/').replace(/^file:\/\/.*\/(dist|src|jobs)\//, '$1/');
const functionKey = (node) => {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${fileOf(url)}:${lineNumber + 1}`;
};
// A package (nm/<name> or nm/@scope/name), or our own file; V8's pseudo-frames by name.
const fileKey = (node) => {
  const file = fileOf(node.callFrame.url);
  if (!file)
    return node.callFrame.functionName.startsWith('(') ? node.callFrame.functionName : '(native)';
  return file.startsWith('nm/')
    ? file
        .split('/')
        .slice(0, file.startsWith('nm/@') ? 3 : 2)
        .join('/')
    : file;
};

const self = new Map();
profile.samples.forEach((id, i) =>
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
);
const total = [...self.values()].reduce((a, b) => a + b, 0);
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
const selfByFunction = new Map();
const selfByFile = new Map();
const inclusiveByFunction = new Map();
const inclusiveByFile = new Map();
for (const [id, us] of self) {
  const node = byId.get(id);
  add(selfByFunction, functionKey(node), us);
  add(selfByFile, fileKey(node), us);
  const functions = new Set();
  const files = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at);
    if (frame.callFrame.functionName === '(root)') continue;
    functions.add(functionKey(frame));
    files.add(fileKey(frame));
  }
  for (const key of functions) add(inclusiveByFunction, key, us);
  for (const key of files) add(inclusiveByFile, key, us);
}
const show = (title, map) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
  }
};
console.log(`${(total / 1e6).toFixed(1)} s sampled`);
show('self time by function', selfByFunction);
show('self time by package or file', selfByFile);
show('inclusive time by function', inclusiveByFunction);
show('inclusive time by package or file', inclusiveByFile);
// The same, only this project's functions (dist/src, dist/jobs): which of our paths the time is under.
show(
  "inclusive time, this project's functions",
  new Map([...inclusiveByFunction].filter(([key]) => / (src|jobs)\//.test(key))),
);
