// integrations/helm/plugin.yaml, Helm 4's postrenderer/v1 plugin, run as
// Helm's subprocess runtime runs it: the platform command chosen from
// plugin.yaml, ${VAR}s expanded from the environment Helm gives it
// (HELM_PLUGIN_NAME, HELM_PLUGIN_DIR), --post-renderer-args appended, the
// manifests on stdin, and what it prints is what Helm installs; an exit
// other than 0 stops the install with no reason shown, so a refusal is a
// string document Helm quotes in its error. The Helm 3 form (an executable)
// is the plain command in a two-line script.
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CLI, ROOT, tempDir } from "../support/cli.ts";
import { run } from "./run.ts";

const PLUGIN_DIR = join(ROOT, "integrations", "helm");
const plugin = parse(readFileSync(join(PLUGIN_DIR, "plugin.yaml"), "utf8"));

let work: string;
let env: Record<string, string>;
let manifests: string;

beforeAll(async () => {
  work = tempDir();
  const bin = join(work, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "rigging"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, "rigging"), 0o755);
  env = { PATH: `${bin}:${process.env.PATH}`, HELM_PLUGIN_NAME: plugin.name, HELM_PLUGIN_DIR: PLUGIN_DIR };
  const rendered = await run(process.execPath, [CLI, "render", join(ROOT, "examples", "compass-server.yaml")]);
  expect(rendered.code, rendered.err).toBe(0);
  manifests = `${rendered.out}# a comment helm left\n`;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Helm's choice for linux: an entry for this OS (and arch), else one without os. */
function platformCommand(): { command: string; args: string[] } {
  const commands: { os?: string; arch?: string; command: string; args?: string[] }[] = plugin.runtimeConfig.platformCommand;
  const chosen =
    commands.find((c) => c.os === process.platform && c.arch === process.arch) ??
    commands.find((c) => c.os === process.platform && !c.arch) ??
    commands.find((c) => !c.os && !c.arch);
  if (!chosen) throw new Error("no platform command for this platform");
  return { command: chosen.command, args: chosen.args ?? [] };
}

/** ${NAME} and $NAME from the plugin's environment, as Go's os.Expand does. */
const expand = (text: string) => text.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => env[a ?? b] ?? "");

/** The post-renderer as Helm 4 runs it: `extra` are --post-renderer-args. */
function postRender(input: string, extra: string[] = []) {
  const { command, args } = platformCommand();
  const [main, ...rest] = command.split(" ");
  return run(expand(main), [...rest.map(expand), ...args.map(expand), ...extra], { input, env, cwd: work });
}

describe("integrations/helm/plugin.yaml (Helm 4)", () => {
  it("is a postrenderer/v1 plugin with the subprocess runtime", () => {
    expect(plugin).toMatchObject({ apiVersion: "v1", type: "postrenderer/v1", name: "rigging-check", runtime: "subprocess" });
    expect(plugin.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(platformCommand()).toEqual({ command: "rigging", args: ["check", "-", "--passthrough", "--refusal-on-stdout"] });
  });

  it("prints its stdin unchanged when nothing is wrong (exit 0): what Helm installs", async () => {
    const r = await postRender(manifests);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(manifests);
  });

  it("refuses an error finding with the report as one YAML string on stdout (exit 0), which Helm cannot install and quotes", async () => {
    const r = await postRender(manifests.replace(/runAsNonRoot: true/g, "runAsNonRoot: false"));
    expect(r.code, r.err).toBe(0);
    const refusal: unknown = parse(r.out);
    expect(typeof refusal).toBe("string");
    expect(refusal).toMatch(/^rigging check refused these manifests:\nerror +<stdin>:\d+ +G-06 .*runAsNonRoot/);
    // The same report on stderr, for a caller that shows it; no colour codes in either.
    expect(r.err).toMatch(/runAsNonRoot/);
    expect(r.out).not.toMatch(/\u001b/);
  });

  it("refuses input that is not manifests the same way, with the input error", async () => {
    const r = await postRender("just: [text\n");
    expect(r.code, r.err).toBe(0);
    const refusal: unknown = parse(r.out);
    expect(typeof refusal).toBe("string");
    expect(refusal).toMatch(/^rigging check refused these manifests:\n.*nothing was checked/s);
  });

  it("keeps exit 1 and an empty stdout without --refusal-on-stdout, and takes that flag only with --passthrough", async () => {
    const bad = manifests.replace(/runAsNonRoot: true/g, "runAsNonRoot: false");
    const plain = await run("rigging", ["check", "-", "--passthrough"], { input: bad, env, cwd: work });
    expect(plain.code).toBe(1);
    expect(plain.out).toBe("");
    const alone = await run("rigging", ["check", "-", "--refusal-on-stdout"], { input: bad, env, cwd: work });
    expect(alone.code).toBe(2);
    expect(alone.err).toMatch(/--refusal-on-stdout goes with --passthrough/);
  });

  it("takes --post-renderer-args after its own: --profile checks every object as one profile", async () => {
    const r = await postRender(manifests, ["--profile", "compass-server"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(manifests);
    // A wrong argument is a refusal too, told where Helm 4 shows it.
    const bad = await postRender(manifests, ["--profile", "nope"]);
    expect(bad.code, bad.err).toBe(0);
    expect(parse(bad.out)).toMatch(/^rigging check refused these manifests:\nerror --profile nope: expected one of /);
    const typo = await postRender(manifests, ["--profil", "compass-server"]);
    expect(parse(typo.out)).toMatch(/unknown option --profil for rigging check \(did you mean --profile\?\)/);
  });
});

describe("the Helm 3 form: --post-renderer EXECUTABLE", () => {
  it("the two-line script of docs/integrations/helm.md keeps the same contract", async () => {
    const doc = readFileSync(join(ROOT, "docs", "integrations", "helm.md"), "utf8");
    const printf = /printf '(#!\/bin\/sh\\nexec rigging check - --passthrough\\n)' > rigging-post-render/.exec(doc);
    expect(printf).not.toBeNull();
    const script = join(work, "rigging-post-render");
    writeFileSync(script, printf![1].replaceAll("\\n", "\n"));
    chmodSync(script, 0o755);
    const clean = await run(script, [], { input: manifests, env, cwd: work });
    expect(clean.code, clean.err).toBe(0);
    expect(clean.out).toBe(manifests);
    const broken = await run(script, [], { input: manifests.replace(/runAsNonRoot: true/g, "runAsNonRoot: false"), env, cwd: work });
    expect(broken.code).toBe(1);
    expect(broken.out).toBe("");
  });
});
