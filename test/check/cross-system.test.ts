// Systems in one input are judged together: the Runner against the
// Server's --runner-clusters entry (CR-03, CR-04). The fixtures are the
// hand-written corpus's: test/fixtures/check/compass-runner/valid-with-server.yaml
// (which agrees) and its broken variants.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { catalog } from "../../src/systems/registry.ts";

const FIXTURE = "test/fixtures/check/compass-runner/valid-with-server.yaml";
const text = readFileSync(FIXTURE, "utf8");
const objectsOf = (yaml: string): K8sObject[] => parseAllDocuments(yaml).map((d) => d.toJS());
const errors = (yaml: string) => catalog.checkObjects(objectsOf(yaml)).filter((f) => f.severity === "error");

describe("the Runner and the Server's cluster entry in one input", () => {
  it("agreeing: no finding", () => {
    expect(errors(text)).toEqual([]);
  });

  it("the entry's ServiceAccount differs: CR-04 on the DaemonSet, naming the entry", () => {
    const found = errors(text.replace("serviceAccount: kvm-runner", "serviceAccount: runner"));
    expect(found.map((f) => f.id)).toEqual(["CR-04"]);
    expect(found[0].object.kind).toBe("DaemonSet");
    expect(found[0].message).toContain("ServiceAccount kvm-runner");
    expect(found[0].message).toContain("ServiceAccount runner");
  });

  it("the entry's audience differs: CR-04 (beside the Server's own CS-09)", () => {
    const yaml = text.replace("        serviceAccount: kvm-runner\n", "        serviceAccount: kvm-runner\n        audience: compass-runner-eu\n");
    expect(yaml).not.toBe(text);
    const found = errors(yaml);
    expect(found.map((f) => f.id).sort()).toEqual(["CR-04", "CS-09"]);
    expect(found.find((f) => f.id === "CR-04")!.message).toContain("audience compass-runner is not the Server cluster entry's");
  });

  it("the entry's lifetime is below the token's: CR-03 at expirationSeconds", () => {
    const found = errors(text.replace("maxTokenLifetime: 12h", "maxTokenLifetime: 3599s"));
    expect(found.map((f) => f.id)).toEqual(["CR-03"]);
    expect(found[0].path.at(-1)).toBe("expirationSeconds");
    // At the limit it is accepted.
    expect(errors(text.replace("maxTokenLifetime: 12h", "maxTokenLifetime: 1h"))).toEqual([]);
  });

  it("judged alone, the Runner is not compared with any entry", () => {
    const typo = objectsOf(text.replace("namespace: ci-microvms\n        serviceAccount", "namespace: elsewhere\n        serviceAccount"));
    expect(catalog.checkObjects(typo).map((f) => f.id)).toContain("CR-04");
    const runnerOnly = typo.filter((o) => o.metadata?.labels?.["app.kubernetes.io/name"] === "compass-runner");
    expect(runnerOnly.some((o) => o.kind === "DaemonSet")).toBe(true);
    expect(catalog.checkObjects(runnerOnly).filter((f) => f.severity === "error")).toEqual([]);
  });
});
