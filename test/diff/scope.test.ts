// What diff compares: only objects rigging renders can be removed (another
// team's live objects are counted, not compared), and a directory with a
// kustomization is read through its resources.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { liveOf } from "../support/live-state.ts";
import { ROOT, runInProcess, tempDir, tempFile } from "../support/cli.ts";

const RUNNER = "examples/compass-runner.yaml";
const rendered = (file: string) => renderSource(parseValuesFile(readFileSync(join(ROOT, file), "utf8"), file)).objects;
const diff = (...args: string[]) => runInProcess(["diff", ...args]);

/** Another team's policy, as `kubectl get vap -o yaml` prints it. */
const otherTeamsPolicy = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: {
    name: "platform-require-team-label",
    uid: "6f1c2b9e-3d4a-4e5f-9a8b-7c6d5e4f3a2b",
    resourceVersion: "88123",
    generation: 1,
    creationTimestamp: "2026-10-02T08:15:00Z",
    labels: { "app.kubernetes.io/managed-by": "platform-team" },
  },
  spec: {
    failurePolicy: "Fail",
    matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }] },
    validations: [{ expression: "has(object.metadata.labels.team)" }],
  },
  status: { observedGeneration: 1, typeChecking: {} },
};

describe("diff: only rigging's objects are removed", () => {
  it("another team's live ValidatingAdmissionPolicy is counted as not rigging's, not reported as removed", () => {
    const list = liveOf(rendered(RUNNER)) as { items: unknown[] };
    list.items.push(otherTeamsPolicy);
    const live = tempFile(stringify(list), "live.yaml");
    const r = diff(live, RUNNER);
    expect(r.out).toBe(
      "not rigging's, not compared: 1 object(s) on one side only without the app.kubernetes.io/managed-by: rigging label (admissionregistration.k8s.io/ValidatingAdmissionPolicy platform-require-team-label)\nsummary: no change\n",
    );
    expect(r.code).toBe(0);
    const json = JSON.parse(diff(live, RUNNER, "--format", "json").out);
    expect(json).toEqual({
      summary: "no change",
      changes: [],
      notRigging: ["admissionregistration.k8s.io/ValidatingAdmissionPolicy platform-require-team-label"],
    });
  });

  it("rigging's own objects NEW drops are still removed: by label, or listed in a render -o directory's manifest", () => {
    const dir = join(tempDir(), "out");
    expect(runInProcess(["render", RUNNER, "-o", dir, "--quiet"]).code).toBe(0);
    // Labels stripped by hand: the manifest still says rigging wrote the file.
    const file = join(dir, "manifests.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replaceAll("app.kubernetes.io/managed-by: rigging", "app.kubernetes.io/managed-by: hand"));
    const empty = tempFile("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: x\n", "other.yaml");
    const r = diff(dir, empty);
    expect(r.out).toContain("- apps/DaemonSet compass-runner/compass-runner\n");
    expect(r.out).not.toContain("not rigging's");
  });
});

describe("diff: a directory with a kustomization", () => {
  const objects = () =>
    rendered(RUNNER)
      .map((o) => stringify(o))
      .join("---\n");

  it.each(["kustomization.yaml", "kustomization.yml", "Kustomization"])("%s without apiVersion and kind: its resources are read, nothing fails", (name) => {
    const dir = tempDir();
    writeFileSync(join(dir, name), "resources:\n  - runner.yaml\n  - extra\npatches:\n  - path: patch.yaml\n");
    writeFileSync(join(dir, "runner.yaml"), objects());
    // A patch is a partial object: read as a resource it would be the DaemonSet twice.
    writeFileSync(join(dir, "patch.yaml"), "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: compass-runner\n  namespace: compass-runner\n");
    mkdirSync(join(dir, "extra"));
    writeFileSync(join(dir, "extra", "kustomization.yaml"), "resources: []\n");
    const r = diff(dir, RUNNER);
    expect(r.out).toBe("summary: no change\n");
    expect(r.err).toBe(
      `note: ${join(dir, name)}: its resources are read as they are, not built (patches not applied); for the built objects: kubectl kustomize ${dir} | rigging diff - ...\n`,
    );
    expect(r.code).toBe(0);
  });

  it("a resource that is not there is an error (exit 2)", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "kustomization.yaml"), "resources:\n  - missing.yaml\n");
    const r = diff(dir, RUNNER);
    expect(r.err).toBe(`error ${join(dir, "kustomization.yaml")}: its resource missing.yaml is not there\n`);
    expect(r.code).toBe(2);
  });
});
