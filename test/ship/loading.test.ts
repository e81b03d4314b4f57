// What the built command loads (src/seams.ts, docs/performance.md):
// the files of dist/lib/ other than main.cjs, and Node's modules beyond
// those every process has, load only for the commands that need them; the
// files a render loads come with a code cache that V8 accepts. A preloaded
// probe watches the files the launcher opens and compiles, and Node's list of
// loaded modules.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, ROOT, runProcess, tempDir, tempFile } from "../support/cli.ts";

const PROBE = tempFile(
  `const fs = require("node:fs");
const vm = require("node:vm");
const before = new Set(process.moduleLoadList);
const open = fs.openSync;
const files = [];
fs.openSync = function (path, ...rest) {
  const m = typeof path === "string" && /[\\\\/]lib[\\\\/]([\\w-]+)\\.cjs$/.exec(path);
  if (m) files.push(m[1]);
  return open.call(this, path, ...rest);
};
const compiled = {};
vm.Script = class extends vm.Script {
  constructor(source, options) {
    super(source, options);
    const m = /([\\w-]+)\\.cjs$/.exec(options.filename);
    if (m) compiled[m[1]] = !options.cachedData ? "no cache" : this.cachedDataRejected ? "cache rejected" : "cache accepted";
  }
};
process.on("exit", () => {
  const modules = process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith("NativeModule ")).map((m) => m.slice(13));
  fs.writeFileSync(process.env.RIGGING_PROBE_OUT, JSON.stringify({ files, compiled, modules }));
});
`,
  "probe.cjs",
);

interface Loaded {
  code: number;
  err: string;
  /** The files of dist/lib/ read, by name (main, yaml, zod, pg, cel, nats). */
  files: string[];
  compiled: Record<string, string>;
  /** Node's own modules loaded after start-up. */
  modules: string[];
}

function loads(args: string[], env: Record<string, string> = {}): Loaded {
  const out = join(tempDir(), "loaded.json");
  const r = runProcess(process.execPath, ["--require", PROBE, CLI, ...args], undefined, { RIGGING_PROBE_OUT: out, ...env });
  return { code: r.code, err: r.err, ...JSON.parse(readFileSync(out, "utf8")) };
}

const EXAMPLE = join(ROOT, "examples", "compass-runner.yaml");
/** Node modules that only a fleet, a hash, a certificate or the network needs. */
const LATE = ["worker_threads", "os", "tls", "http", "https", "child_process", "module"];

describe("the built command loads what a command needs, when it needs it", () => {
  it("--version: rigging itself, no yaml package, no zod, no pg, no CEL engine, no NATS client, none of Node's late modules", () => {
    const loaded = loads(["--version"]);
    expect(loaded.code, loaded.err).toBe(0);
    expect(loaded.files).toContain("main");
    for (const file of ["yaml", "zod", "pg", "cel", "nats"]) expect(loaded.files).not.toContain(file);
    expect(loaded.files.filter((file) => file.startsWith("kind-"))).toEqual([]);
    // No command's file: --version is main.cjs alone.
    expect(loaded.files).toEqual(["main"]);
    // (node:net is Node's own here: stdout is a pipe, a socket.)
    for (const name of [...LATE, "crypto"]) expect(loaded.modules).not.toContain(name);
  });

  it("render: no yaml package, zod, pg, CEL engine or NATS client, no worker threads, only its own kind's validator; each file it reads compiled from an accepted code cache", () => {
    const loaded = loads(["render", EXAMPLE]);
    expect(loaded.code, loaded.err).toBe(0);
    // zod words refusals only: valid values never load it. The yaml package
    // parses only what js-yaml may read otherwise, finds positions for a
    // message and quotes what js-yaml would leave misreadable: none of it here.
    for (const file of ["yaml", "zod", "pg", "cel", "nats"]) expect(loaded.files).not.toContain(file);
    // Its own kind's validator, schema, renderer and rules, and no other kind's (src/seams.ts, KIND_HEADS).
    expect(loaded.files.filter((file) => /^(kind|validators)-/.test(file))).toEqual(["kind-compass-runner"]);
    // Nothing of a fleet, the other commands or the CR-06 judge (src/seams.ts, SOURCE_CHUNKS): main.cjs and its kind's file.
    expect(loaded.files).toEqual(["main", "kind-compass-runner"]);
    for (const name of LATE) expect(loaded.modules).not.toContain(name);
    // Its values hold IPv4 addresses: told apart without node:net and the stream modules it loads (src/k8s/ip.ts).
    for (const name of ["net", "stream"]) expect(loaded.modules).not.toContain(name);
    // A values file alone needs no argument parser (renderArgs in src/cli/render.ts).
    expect(loaded.modules).not.toContain("internal/util/parse_args/parse_args");
    expect(Object.keys(loaded.compiled).sort()).toEqual([...new Set(loaded.files)].sort());
    for (const [file, how] of Object.entries(loaded.compiled)) expect(`${file}: ${how}`).toBe(`${file}: cache accepted`);
  });

  it("render of another kind loads that kind's files alone, with accepted code caches", () => {
    const loaded = loads(["render", join(ROOT, "examples", "rootpilot-gke.yaml")]);
    expect(loaded.code, loaded.err).toBe(0);
    expect(loaded.files.filter((file) => /^(kind|validators)-/.test(file)).sort()).toEqual(["kind-rootpilot-runner"]);
    for (const [file, how] of Object.entries(loaded.compiled)) expect(`${file}: ${how}`).toBe(`${file}: cache accepted`);
  });

  it("render with an option parses its arguments with Node's parser", () => {
    const loaded = loads(["render", EXAMPLE, "--quiet"]);
    expect(loaded.code, loaded.err).toBe(0);
    expect(loaded.modules).toContain("internal/util/parse_args/parse_args");
  });

  it("render of refused values loads zod to word the refusal and the yaml package to place it", () => {
    const example = readFileSync(EXAMPLE, "utf8");
    const line = example.split("\n").indexOf("sessionCapacity: 4") + 1;
    expect(line).toBeGreaterThan(0);
    const refused = tempFile(example.replace(/^sessionCapacity: 4$/m, "sessionCapacity: -4"));
    const loaded = loads(["render", refused]);
    expect(loaded.code, loaded.err).toBe(1);
    expect(loaded.err).toContain(`${refused}:${line}:18 sessionCapacity: -4 is below 1 (CR-19`);
    for (const file of ["yaml", "zod"]) expect(loaded.files).toContain(file);
    expect(loaded.compiled.yaml).toBe("cache accepted");
  });

  it("check loads the CEL engine for a set with admission policies, and not for a set without", () => {
    const runner = join(tempDir(), "runner");
    const server = join(tempDir(), "server");
    expect(runProcess(process.execPath, [CLI, "render", EXAMPLE, "-o", runner]).code).toBe(0);
    expect(runProcess(process.execPath, [CLI, "render", join(ROOT, "examples", "compass-server.yaml"), "-o", server]).code).toBe(0);
    const withPolicies = loads(["check", runner]);
    expect(withPolicies.code, withPolicies.err).toBe(0);
    expect(withPolicies.files).toContain("cel");
    expect(withPolicies.compiled.cel).toBe("cache accepted");
    // The command's own file, and the CR-06 admission stage that the Runner's rules run in a check (not in a render's self-check).
    for (const file of ["check", "admission"]) expect(`${file}: ${withPolicies.compiled[file]}`).toBe(`${file}: cache accepted`);
    expect(withPolicies.files).not.toContain("fleet");
    const without = loads(["check", server]);
    expect(without.code, without.err).toBe(0);
    for (const file of ["cel", "pg", "nats", "admission"]) expect(without.files).not.toContain(file);
  });

  it("a fleet loads the fleet's file, with an accepted code cache, and not the CR-06 admission stage", () => {
    const out = join(tempDir(), "fleet");
    const loaded = loads(["render", EXAMPLE, join(ROOT, "examples", "rootpilot-eks.yaml"), "-o", out]);
    expect(loaded.code, loaded.err).toBe(0);
    expect(loaded.compiled.fleet).toBe("cache accepted");
    expect(loaded.files).not.toContain("admission");
    const stream = loads(["render", join(ROOT, "examples")]);
    expect(stream.files).toContain("fleet");
  });

  it("the other commands load their file, with an accepted code cache; help for one of them loads it", () => {
    const loaded = loads(["explain", "CR-06"]);
    expect(loaded.code, loaded.err).toBe(0);
    expect(loaded.compiled.commands).toBe("cache accepted");
    expect(loaded.files).not.toContain("check");
    expect(loads(["help", "schema"]).files).toContain("commands");
    expect(loads(["--help"]).files).toEqual(["main"]);
  });

  it("preflight postgres loads pg (and no CEL engine or NATS client)", () => {
    // Nothing listens on port 9 of 127.0.0.1: the connection is refused at once.
    const loaded = loads(["preflight", "postgres"], { COMPASS_DATABASE_DSN: "postgres://u:p@127.0.0.1:9/db?sslmode=disable" });
    expect(loaded.err).toContain("cannot check the database");
    expect(loaded.files).toContain("pg");
    for (const file of ["cel", "nats"]) expect(loaded.files).not.toContain(file);
  });
});
