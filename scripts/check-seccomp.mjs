#!/usr/bin/env node
// Sanity checks for the Compass Runner seccomp profile (CR-10).
// Usage: node scripts/check-seccomp.mjs [path]   (Node 20, no dependencies)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = process.argv[2] ?? join(root, 'seccomp', 'compass-runner.json');
const label = relative(process.cwd(), file) || file;

function fail(msg) {
  console.error(`${label}: ${msg}`);
  process.exit(1);
}

let profile;
try {
  profile = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  fail(`cannot load as JSON: ${err.message}`);
}

if (profile === null || typeof profile !== 'object' || Array.isArray(profile)) fail('top level is not a JSON object');
if (profile.defaultAction !== 'SCMP_ACT_ERRNO') fail(`defaultAction is ${JSON.stringify(profile.defaultAction)}, expected "SCMP_ACT_ERRNO"`);
if (!Array.isArray(profile.syscalls)) fail('"syscalls" is not an array');

const hasArgs = (e) => Array.isArray(e.args) && e.args.length > 0;
const allowed = new Set();
const plainSeen = new Map(); // name -> index of the arg-free allow entry that lists it

profile.syscalls.forEach((entry, i) => {
  if (!entry || !Array.isArray(entry.names) || entry.names.some((n) => typeof n !== 'string' || n === '')) {
    fail(`syscalls[${i}] has no valid "names" array`);
  }
  if (entry.action !== 'SCMP_ACT_ALLOW') return;
  for (const name of entry.names) {
    allowed.add(name);
    if (hasArgs(entry)) continue;
    if (plainSeen.has(name)) fail(`"${name}" is allowed without args in both syscalls[${plainSeen.get(name)}] and syscalls[${i}]`);
    plainSeen.set(name, i);
  }
});

for (const name of ['clone', 'clone3', 'unshare', 'mount']) {
  const hits = profile.syscalls
    .map((e, i) => [e, i])
    .filter(([e]) => e.action === 'SCMP_ACT_ALLOW' && e.names.includes(name));
  if (hits.length !== 1) fail(`"${name}" must be allowed in exactly one entry, found ${hits.length}`);
  const [entry, i] = hits[0];
  if ('args' in entry) fail(`"${name}" is allowed in syscalls[${i}], which has args; CR-10 allows it without argument filters`);
  const other = profile.syscalls.findIndex((e, j) => j !== i && e.names.includes(name));
  if (other !== -1) fail(`"${name}" also appears in syscalls[${other}] (action ${profile.syscalls[other].action})`);
}

console.log(`${label}: ${allowed.size} syscalls allowed`);
