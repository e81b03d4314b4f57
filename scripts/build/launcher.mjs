#!/usr/bin/env node
// rigging, for paths that name rigging.mjs: the command is rigging.cjs.
import { createRequire } from "node:module";

createRequire(import.meta.url)("./rigging.cjs");
