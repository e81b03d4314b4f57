// `rigging init KIND -o FILE`: the modeline on line 1 names the schema
// relative to FILE's directory, where an editor resolves it, and the schema
// it names exists (init writes it when missing, never over a file).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CLI, runInProcess, tempDir } from "../support/cli.ts";

const MODELINE = /^# yaml-language-server: \$schema=(\S+)\n/;

/** The built CLI run in `cwd`, as a person runs it from a directory of their repository. */
function cliIn(cwd: string, args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The schema a written values file's modeline names, resolved as an editor resolves it: from the file's directory. */
function schemaOf(file: string): string {
  const named = MODELINE.exec(readFileSync(file, "utf8"))?.[1];
  expect(named).toBeDefined();
  return resolve(dirname(file), named!);
}

function validates(schemaFile: string, valuesFile: string): boolean {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv.compile(JSON.parse(readFileSync(schemaFile, "utf8")))(parse(readFileSync(valuesFile, "utf8")));
}

describe("rigging init -o FILE", () => {
  it("from a repository's root: clusters/east.yaml names ../rigging.schema.json, which init writes there", () => {
    const repo = tempDir();
    const r = cliIn(repo, ["init", "RootpilotRunner", "-o", "clusters/east.yaml"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/^wrote clusters\/east\.yaml\nwrote rigging\.schema\.json: /);
    const file = join(repo, "clusters", "east.yaml");
    expect(MODELINE.exec(readFileSync(file, "utf8"))![1]).toBe("../rigging.schema.json");
    expect(schemaOf(file)).toBe(join(repo, "rigging.schema.json"));
    expect(JSON.parse(readFileSync(join(repo, "rigging.schema.json"), "utf8"))).toEqual(JSON.parse(runInProcess(["schema"]).out));
    expect(validates(schemaOf(file), file)).toBe(true);
    expect(readFileSync(file, "utf8")).toContain("# Render:  rigging render clusters/east.yaml\n");
    expect(cliIn(repo, ["render", "clusters/east.yaml"]).code).toBe(0);
  });

  it("from a subdirectory, with --schema naming the repository's schema: the modeline is relative to the file, not to where init ran", () => {
    const repo = tempDir();
    writeFileSync(join(repo, "rigging.schema.json"), runInProcess(["schema"]).out);
    const team = join(repo, "teams", "build");
    mkdirSync(team, { recursive: true });
    const r = cliIn(team, ["init", "CompassRunner", "-o", "../../clusters/prod/runner.yaml", "--schema", "../../rigging.schema.json"]);
    expect(r.code, r.err).toBe(0);
    // The schema existed: init leaves it alone and says only what it wrote.
    expect(r.err).toBe("wrote ../../clusters/prod/runner.yaml\n");
    const file = join(repo, "clusters", "prod", "runner.yaml");
    expect(MODELINE.exec(readFileSync(file, "utf8"))![1]).toBe("../../rigging.schema.json");
    expect(schemaOf(file)).toBe(join(repo, "rigging.schema.json"));
    expect(validates(schemaOf(file), file)).toBe(true);
  });

  it("in-process, with absolute paths: the file beside the schema names it by its name", () => {
    const dir = tempDir();
    const file = join(dir, "values.yaml");
    const r = runInProcess(["init", "Compass", "-o", file, "--schema", join(dir, "rigging.schema.json")]);
    expect(r.code, r.err).toBe(0);
    expect(MODELINE.exec(readFileSync(file, "utf8"))![1]).toBe("rigging.schema.json");
    expect(existsSync(join(dir, "rigging.schema.json"))).toBe(true);
  });

  it("never overwrites: an existing FILE is a usage error and stays as it was", () => {
    const dir = tempDir();
    const file = join(dir, "values.yaml");
    writeFileSync(file, "mine\n");
    const r = runInProcess(["init", "CompassRunner", "-o", file, "--schema", join(dir, "s.json")]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${file} exists: init never overwrites a file`);
    expect(readFileSync(file, "utf8")).toBe("mine\n");
    expect(existsSync(join(dir, "s.json"))).toBe(false);
  });

  it("a path with a line break, which would end the modeline's comment, is a usage error", () => {
    const dir = tempDir();
    const r = runInProcess(["init", "CompassRunner", "-o", join(dir, "v.yaml"), "--schema", "a\nkind: Other"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--schema "a\\nkind: Other": a path with a control character');
    expect(existsSync(join(dir, "v.yaml"))).toBe(false);
  });

  it("an https:// schema is named as is, and nothing else is written", () => {
    const dir = tempDir();
    const file = join(dir, "deep", "values.yaml");
    const url = "https://example.com/schemas/rigging.schema.json";
    expect(runInProcess(["init", "CompassServer", "-o", file, "--schema", url]).code).toBe(0);
    expect(MODELINE.exec(readFileSync(file, "utf8"))![1]).toBe(url);
    expect(existsSync(join(dir, "rigging.schema.json"))).toBe(false);
  });
});

describe("rigging init on stdout", () => {
  it("names rigging.schema.json beside the file, or --schema as given, and writes nothing", () => {
    expect(MODELINE.exec(runInProcess(["init", "CompassRunner"]).out)![1]).toBe("rigging.schema.json");
    const r = runInProcess(["init", "CompassRunner", "--schema", "../rigging.schema.json"]);
    expect(r.code).toBe(0);
    expect(MODELINE.exec(r.out)![1]).toBe("../rigging.schema.json");
    expect(r.err).toBe("");
  });

  it("--help says how the modeline is resolved, with -o and --schema", () => {
    const help = runInProcess(["init", "--help"]).out;
    expect(help).toMatch(/^Usage: rigging init KIND \[-o FILE\] \[--schema PATH\|URL\]/);
    expect(help).toContain("rigging init RootpilotRunner -o clusters/east.yaml");
    expect(help).toContain("$schema=../rigging.schema.json");
  });
});
