// --kube-version as people write a cluster's version, reduced to its minor,
// and what render and diff do with it: a system below its floor is refused.
import { describe, expect, it } from "vitest";
import { minorVersion } from "../../src/k8s/kube-version.ts";
import { runInProcess, tempFile } from "../support/cli.ts";

const RUNNER = "examples/compass-runner.yaml";
const ROOTPILOT = "examples/rootpilot-gke.yaml";

describe("minorVersion", () => {
  it.each([
    ["1.24", "1.24"],
    ["1.30", "1.30"],
    ["1.30.4", "1.30"],
    ["v1.30", "1.30"],
    ["v1.30.4", "1.30"],
    ["1.36.0", "1.36"],
    ["v1.100.12", "1.100"],
  ])("%s is %s", (given, minor) => {
    expect(minorVersion(given)).toBe(minor);
  });

  it.each(["", "1", "v1", "1.", "1.30.", "1.30.4.1", "V1.30", "2.0", "1.x", " 1.30", "1.30 ", "1.30-gke.1"])("%j is no version", (given) => {
    expect(minorVersion(given)).toBeUndefined();
  });
});

describe("render --kube-version", () => {
  const plain = runInProcess(["render", RUNNER]);

  it.each(["1.24", "1.30", "v1.31.9"])("a Compass Runner for %s, below its floor: refused (exit 1), naming the floor and the gates", (version) => {
    const r = runInProcess(["render", RUNNER, "--kube-version", version]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toMatch(
      /^error examples\/compass-runner\.yaml DaemonSet\/compass-runner\/compass-runner spec\.template\.spec\.hostUsers: Kubernetes 1\.\d+ \(--kube-version\) runs no pod in a user namespace as the Runner needs: it needs 1\.33 or newer, or 1\.32 with the feature gates UserNamespacesSupport=true and ProcMountType=true on the API server and the kubelet \(CR-09: /m,
    );
  });

  it.each(["1.32", "v1.33.2", "1.36"])("a Compass Runner for %s: the same output as without the flag", (version) => {
    const r = runInProcess(["render", RUNNER, "--kube-version", version]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(plain.out);
  });

  it("a Rootpilot runner has no such floor; a directory and a fleet are judged the same way", () => {
    expect(runInProcess(["render", ROOTPILOT, "--kube-version", "1.24"]).code).toBe(0);
    const dir = tempFile(runInProcess(["init", "CompassRunner"]).out, "runner.yaml").replace(/\/runner\.yaml$/, "");
    expect(runInProcess(["render", dir, "--kube-version", "1.30"]).code).toBe(1);
    expect(runInProcess(["render", dir, "--kube-version", "1.33"]).code).toBe(0);
  });

  it("a spelling that is no version is a usage error (exit 2)", () => {
    const r = runInProcess(["render", RUNNER, "--kube-version", "1.30-gke.1"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--kube-version "1.30-gke.1": expected 1.N (or 1.N.P, v1.N.P)');
  });
});

describe("diff --kube-version", () => {
  it("renders the values side for that version: below the Runner's floor, it says how to see why", () => {
    const rendered = tempFile(runInProcess(["render", RUNNER]).out, "out.yaml");
    expect(runInProcess(["diff", rendered, RUNNER, "--kube-version", "1.33"]).code).toBe(0);
    const r = runInProcess(["diff", rendered, RUNNER, "--kube-version", "1.30.2"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("run rigging render examples/compass-runner.yaml --kube-version 1.30 for them");
  });
});
