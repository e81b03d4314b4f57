#!/usr/bin/env node
// rigging: runs lib/main.cjs, and each part of lib/ it asks for, compiled
// with the V8 code cache the build made for it (scripts/build/caches.mjs).
"use strict";
const { closeSync, fstatSync, openSync, readSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const { Script } = require("node:vm");
const lib = join(__dirname, "lib");
const warmUp = process.env.RIGGING_WRITE_CODE_CACHE === lib;
const chunks = new Map();
// One buffer for every file read and its cache, so a run touches that memory once (docs/performance.md).
let scratch = Buffer.alloc(0);
/** Reads the open file into the scratch buffer and closes it. */
function read(fd, size) {
  try {
    let n = 0;
    for (let got = 1; n < size && got > 0; n += got) got = readSync(fd, scratch, n, size - n, n);
    return scratch.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
/** The file of lib/ named, run once, with its exports. */
function load(name) {
  const loaded = chunks.get(name);
  if (loaded) return loaded.exports;
  const file = join(lib, `${name}.cjs`);
  const cache = join(lib, `${name}.cache`);
  const sourceFd = openSync(file, "r");
  let cacheFd;
  try {
    cacheFd = openSync(cache, "r");
  } catch {}
  const sourceSize = fstatSync(sourceFd).size;
  const cacheSize = cacheFd === undefined ? 0 : fstatSync(cacheFd).size;
  if (scratch.length < Math.max(sourceSize, cacheSize)) scratch = Buffer.allocUnsafeSlow(Math.max(sourceSize, cacheSize));
  // (function (exports, require, module, __filename, __dirname, __riggingChunk) {...})
  const source = read(sourceFd, sourceSize).utf8Slice();
  // V8 reads the cache only while it compiles: the next file may overwrite it.
  const cachedData = cacheFd === undefined ? undefined : read(cacheFd, cacheSize);
  const script = new Script(source, { filename: file, cachedData });
  if (warmUp && (!cachedData || script.cachedDataRejected)) process.once("exit", () => writeFileSync(cache, script.createCachedData()));
  const module = { exports: {} };
  chunks.set(name, module);
  // main.cjs runs as this file (its package root and worker threads start here).
  if (name === "main") script.runInThisContext()(module.exports, require, module, __filename, __dirname, load);
  else script.runInThisContext()(module.exports, require, module, file, lib, load);
  return module.exports;
}
load("main").start();
