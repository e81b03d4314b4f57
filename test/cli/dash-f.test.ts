// -f as Helm and kubectl users read it: the values file for render, pin and
// fn, a manifest file for check; --format keeps its long name.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { run } from "../ship/run.ts";
import { CLI, ROOT, runInProcess, tempFile } from "../support/cli.ts";

const EXAMPLE = join(ROOT, "examples", "rootpilot-gke.yaml");

describe("-f", () => {
  it("render -f VALUES prints what render VALUES prints; --format json still works", () => {
    const plain = runInProcess(["render", EXAMPLE]);
    expect(plain.code, plain.err).toBe(0);
    expect(runInProcess(["render", "-f", EXAMPLE]).out).toBe(plain.out);
    const json = runInProcess(["render", "-f", EXAMPLE, "--format", "json"]);
    expect(json.code, json.err).toBe(0);
    expect(JSON.parse(json.out).kind).toBe("List");
  });

  it("render refuses several VALUES beside -f: a fleet is not layered", () => {
    const r = runInProcess(["render", EXAMPLE, EXAMPLE, "-f", EXAMPLE]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("2 values files without -f are a fleet");
  });

  it("check -f FILE checks that file, as check FILE does", () => {
    const manifests = tempFile(runInProcess(["render", EXAMPLE]).out, "m.yaml");
    const positional = runInProcess(["check", manifests, "--format", "json"]);
    const flagged = runInProcess(["check", "-f", manifests, "--format", "json"]);
    expect(flagged.code, flagged.err).toBe(positional.code);
    expect(flagged.out).toBe(positional.out);
    expect(runInProcess(["check", "-f", join(ROOT, "nonexistent.yaml")]).err).toContain("nonexistent.yaml");
  });

  it("pin -f VALUES reads that values file", () => {
    const file = tempFile("kind: Nope\n", "nope.yaml");
    const r = runInProcess(["pin", "-f", file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${file}: kind "Nope" is not a values kind`);
  });

  it("fn -f VALUES renders those values in place of the functionConfig", async () => {
    const list = stringify({ apiVersion: "config.kubernetes.io/v1", kind: "ResourceList", items: [] });
    const r = await run(process.execPath, [CLI, "fn", "-f", EXAMPLE], { input: list });
    expect(r.code, r.err).toBe(0);
    const items = parse(r.out).items;
    expect(items.map((i: { kind: string }) => i.kind)).toContain("Deployment");
    expect(items[0].metadata.annotations["config.kubernetes.io/path"]).toMatch(/^rigging\//);
    const bad = runInProcess(["fn", "-f"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("fn takes only -f VALUES");
  });

  it.each([
    [["rules", "-f", "json"], "rules"],
    [["rules", "-fjson"], "rules"],
  ])("%j: -f for --format still works for one release, with a warning naming --format", (args, command) => {
    const old = runInProcess(args);
    const now = runInProcess([args[0], "--format", "json"]);
    expect(old.code).toBe(0);
    expect(old.out).toBe(now.out);
    expect(old.err).toBe(`warning: rigging ${command} -f is deprecated: write --format; -f will name an input file, as in rigging render, check, pin and fn\n`);
    expect(now.err).toBe("");
  });

  it("preflight -f json warns the same way, and its help lists --format alone", async () => {
    const r = await run(process.execPath, [CLI, "preflight", "tls", "-f", "json", "--timeout", "1"]);
    expect(r.err).toContain("warning: rigging preflight tls -f is deprecated: write --format");
    expect(JSON.parse(r.out)).toEqual([expect.objectContaining({ id: "D6", outcome: "error" })]);
    for (const help of [runInProcess(["preflight", "tls", "--help"]).out, runInProcess(["rules", "--help"]).out, runInProcess(["diff", "--help"]).out])
      expect(help).not.toMatch(/-f, --format/);
  });
});
