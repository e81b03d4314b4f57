// Hostile values files: each ends in one clear error, fast, and never in a
// crash, a hang or a polluted prototype. The limits are the documented ones.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../src/parse/limits.ts";
import { runInProcess } from "../support/cli.ts";

const EXAMPLE = readFileSync("examples/compass-runner.yaml", "utf8");
let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "rigging-hostile-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** Renders `path` and expects exactly one error line on stderr. */
// Speed is not asserted here (that is `npm run bench`'s job): an input that
// made the parser hang or expand would run into the test timeout instead.
function refused(path: string, code = 2) {
  const result = runInProcess(["render", path]);
  expect(result.code, result.err).toBe(code);
  expect(result.out).toBe("");
  expect(result.err).not.toMatch(/internal error| {4}at /);
  return result;
}

describe("hostile values files", () => {
  it("a billion-laughs alias bomb ends fast with the alias limit", () => {
    const levels = ["lol: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
    for (let i = 1; i <= 9; i++)
      levels.push(
        `l${i}: &a${i} [${Array(9)
          .fill(i === 1 ? "*a" : `*a${i - 1}`)
          .join(", ")}]`,
      );
    const { err: stderr } = refused(file("laughs.yaml", `kind: CompassRunner\n${levels.join("\n")}\n`));
    expect(stderr).toMatch(/alias/i);
    expect(stderr).toContain(`${LIMITS.aliases} alias expansions`);
  });

  it.each([
    ["a flow sequence", `x: ${"[".repeat(10_000)}${"]".repeat(10_000)}`],
    ["a flow mapping", `x: ${"{a: ".repeat(10_000)}1${"}".repeat(10_000)}`],
    ["a block mapping", `${Array.from({ length: 1_000 }, (_, i) => `${" ".repeat(i)}k:`).join("\n")} 1`],
    ["a just-over-the-limit sequence", `x: ${"[".repeat(LIMITS.depth + 1)}${"]".repeat(LIMITS.depth + 1)}`],
  ])("%s nested past the limit is refused with the depth limit", (_, body) => {
    const { err: stderr } = refused(file("deep.yaml", `kind: CompassRunner\n${body}\n`));
    expect(stderr).toContain(`nested deeper than the limit of ${LIMITS.depth} levels`);
  });

  it("a 50 MiB file is refused with the size limit, before it is parsed", () => {
    const path = join(dir, "huge.yaml");
    writeFileSync(path, `kind: CompassRunner\n# ${"x".repeat(50 * 1024 * 1024)}\n`);
    const { err: stderr } = refused(path);
    expect(stderr).toContain(`${LIMITS.fileBytes / 1024 / 1024} MiB`);
    rmSync(path);
  });

  it("a file just over the size limit is refused; one at the limit is read", () => {
    const over = file("over.yaml", `kind: CompassRunner\n#${"x".repeat(LIMITS.fileBytes)}\n`);
    expect(refused(over).err).toContain(`${LIMITS.fileBytes}-byte`);
    const at = file("at.yaml", EXAMPLE + "#".repeat(LIMITS.fileBytes - Buffer.byteLength(EXAMPLE)));
    expect(runInProcess(["render", at]).code).toBe(0);
  });

  it("a device without a size (/dev/zero) is refused at the limit, not read forever", { skip: !existsSync("/dev/zero") }, () => {
    const { err: stderr } = refused("/dev/zero");
    expect(stderr).toMatch(/binary|limit/);
  });

  it("stdin over the size limit is refused with the limit", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "src/cli/main.ts", "render", "-"], {
      input: `kind: CompassRunner\n#${"x".repeat(LIMITS.fileBytes + 10)}\n`,
      encoding: "utf8",
    });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(`<stdin>: over the ${LIMITS.fileBytes / 1024 / 1024} MiB`);
  });

  it.each(["__proto__", "constructor"])("a %s key pollutes nothing and is reported as an unknown key", (key) => {
    const body = `${EXAMPLE}\n${key}:\n  polluted: yes\n  prototype:\n    polluted: yes\n`;
    const { err: stderr } = refused(file(`${key}.yaml`, body), 1);
    expect(stderr).toMatch(new RegExp(`:\\d+:\\d+ ${key}: unknown key \\(G-01`));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it.each([
    ["serverCA", "  __proto__:\n    polluted: yes", "serverCA.__proto__"],
    ["hostPaths", "  constructor: x", "hostPaths.constructor"],
    ["nodeSelector", '  __proto__: "x"', "nodeSelector.__proto__: unknown key"],
    ["toleration", "  __proto__: {polluted: yes}", "toleration.__proto__: unknown key"],
    ["serverCluster", "  constructor:\n    prototype:\n      polluted: yes", "serverCluster.constructor"],
  ])("a prototype key nested under %s is refused and pollutes nothing", (parent, line, path) => {
    const body = EXAMPLE.replace(new RegExp(`^${parent}:\\n`, "m"), `${parent}:\n${line}\n`);
    expect(body).not.toBe(EXAMPLE);
    const { err: stderr } = refused(file("nested-proto.yaml", body), 1);
    expect(stderr).toContain(` ${path}`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("a duplicate key is an error, not last-wins", () => {
    const { err: stderr } = refused(file("dup.yaml", `${EXAMPLE}\nname: other-runner\n`));
    expect(stderr).toMatch(/dup\.yaml:\d+:\d+ not valid YAML: .*unique/);
  });

  it("non-UTF-8 bytes are refused as not text", () => {
    const bytes = Buffer.concat([Buffer.from("kind: CompassRunner\nname: "), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from("\n")]);
    expect(refused(file("latin.yaml", bytes)).err).toContain("is not valid UTF-8 text");
  });

  it("a binary file is refused as binary", () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
    expect(refused(file("blob.yaml", bytes)).err).toContain("is a binary file");
  });

  it("a symlink loop in an input directory is reported by name and does not hang the fleet", () => {
    const input = join(dir, "loop-fleet");
    const output = join(dir, "loop-out");
    mkdirSync(input);
    writeFileSync(join(input, "good.yaml"), EXAMPLE);
    symlinkSync("self.yaml", join(input, "self.yaml"));
    symlinkSync("pong.yaml", join(input, "ping.yaml"));
    symlinkSync("ping.yaml", join(input, "pong.yaml"));
    symlinkSync(".", join(input, "again")); // a directory loop: never walked
    const result = runInProcess(["render", input, "-o", output]);
    expect(result.code).toBe(1);
    for (const name of ["self.yaml", "ping.yaml", "pong.yaml"]) expect(result.err).toContain(`${join(input, name)}: cannot read: a symbolic link loop`);
    expect(readdirSync(output).filter((e) => !e.startsWith("."))).toEqual(["good"]); // and its hidden generation, .good.1
  });
});
