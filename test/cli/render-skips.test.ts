// `rigging render DIR` (a fleet with -o, or the stream an Argo CD plugin
// reads) skips the files beside values files that are none: an editor's
// rigging.schema.json, a kustomization.yaml. A README is never read.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { runInProcess } from "../support/cli.ts";

const EXAMPLE = readFileSync("examples/compass-runner.yaml", "utf8");

function cluster(): string {
  const dir = mkdtempSync(join(tmpdir(), "rigging-skips-"));
  writeFileSync(join(dir, "eu.yaml"), EXAMPLE);
  writeFileSync(join(dir, "rigging.schema.json"), runInProcess(["schema"]).out);
  writeFileSync(join(dir, "kustomization.yaml"), "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n");
  writeFileSync(join(dir, "README.md"), "# clusters\n");
  return dir;
}

describe("render DIR skips non-values files and notes them", () => {
  it("with -o: renders the values files alone", () => {
    const dir = cluster();
    const out = join(mkdtempSync(join(tmpdir(), "rigging-skips-out-")), "out");
    const r = runInProcess(["render", dir, "-o", out]);
    expect(r.code).toBe(0);
    expect(readdirSync(out).filter((n) => !n.startsWith("."))).toEqual(["eu"]);
    expect(r.err).toContain(`skipped ${join(dir, "rigging.schema.json")}: a JSON Schema, not a values file`);
    expect(r.err).toContain(`skipped ${join(dir, "kustomization.yaml")}: a kustomization, not a values file`);
    expect(r.err).not.toContain("README");
  });

  it("as a stream (an Argo CD plugin's rigging render .): prints the values files' objects", () => {
    const dir = cluster();
    const r = runInProcess(["render", dir]);
    expect(r.code).toBe(0);
    const kinds = parseAllDocuments(r.out).map((d) => d.toJSON()?.kind);
    expect(kinds).toContain("DaemonSet");
    expect(kinds).not.toContain("Kustomization");
    expect(r.err).toContain("a JSON Schema, not a values file");
  });

  it("an invalid values file stays an error", () => {
    const dir = cluster();
    writeFileSync(join(dir, "us.yaml"), EXAMPLE.replace("tokenExpirationSeconds: 3600", "tokenExpirationSeconds: 60"));
    expect(runInProcess(["render", dir]).code).toBe(1);
    const out = join(mkdtempSync(join(tmpdir(), "rigging-skips-out-")), "out");
    expect(runInProcess(["render", dir, "-o", out]).code).toBe(1);
  });

  it("a values file that only looks like a schema by content is still read", () => {
    const dir = cluster();
    writeFileSync(join(dir, "schema.yaml"), "kind: CompassRunner\n");
    expect(runInProcess(["render", dir]).code).toBe(1);
  });
});
