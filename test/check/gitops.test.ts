// check names the GitOps controller whose identity the Runner's admission
// policies refuse (CR-06c), wherever in the repository the object that drives it sits.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, runInProcess, tempDir } from "../support/cli.ts";

const ARGO = "system:serviceaccount:argocd:argocd-application-controller";
const FLUX = "system:serviceaccount:flux-system:kustomize-controller";
const IMPERSONATED = "system:serviceaccount:team-a:deployer";

const SYNC = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: runner, namespace: flux-system}
spec: {interval: 10m, path: ./apps/runner, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: runner, namespace: argocd}
spec:
  project: default
  source: {repoURL: https://example.invalid/repo.git, path: apps/runner}
  destination: {server: https://kubernetes.default.svc, namespace: compass-runner}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: runner-sa, namespace: team-a}
spec: {serviceAccountName: deployer, interval: 10m, path: ./apps/runner, sourceRef: {kind: GitRepository, name: flux-system}}
`;

/** A repository: the Runner rendered from the example (its deployers: Flux's kustomize-controller) and the sync objects elsewhere. */
function repository(): string {
  const root = tempDir();
  mkdirSync(join(root, "clusters", "prod"), { recursive: true });
  mkdirSync(join(root, "apps"));
  expect(runInProcess(["render", "examples/compass-runner.yaml", "-o", join(root, "apps", "runner")]).code).toBe(0);
  writeFileSync(join(root, "clusters", "prod", "sync.yaml"), SYNC);
  return root;
}

const warnings = (out: string) =>
  (JSON.parse(out) as { ruleId: string; severity: string; message: string; file: string; path: string }[]).filter((f) => f.ruleId === "CR-06");

describe("check: the GitOps controllers a repository names, against the Runner's deployers", () => {
  const root = repository();

  it("warns at the policy for each identity it refuses, naming the object and the identity; the one it admits is not named", () => {
    const r = runInProcess(["check", root, "--format", "json"]);
    expect(r.code, r.err).toBe(0);
    const found = warnings(r.out);
    expect(found).toHaveLength(2);
    for (const f of found) {
      expect(f.severity).toBe("warning");
      expect(f.file).toBe(join(root, "apps", "runner", "manifests.yaml"));
      expect(f.path).toBe("spec.validations[0].expression");
    }
    expect(found[0].message).toMatch(new RegExp(`^creating the Runner DaemonSet by ${ARGO} is denied \\(only ${FLUX} may create`));
    expect(found[0].message).toContain(`Argo CD Application argocd/runner (${join(root, "clusters", "prod", "sync.yaml")}) applies as that identity`);
    expect(found[0].message).toMatch(new RegExp(`add ${ARGO} to admission\\.deployers$`));
    expect(found[1].message).toContain(`by ${IMPERSONATED} is denied`);
    expect(found[1].message).toContain("Flux Kustomization team-a/runner-sa");
    expect(r.out).not.toContain(`by ${FLUX}`);
    expect(runInProcess(["check", root, "--fail-on", "warning"]).code).toBe(1);
  });

  it("the same on worker threads, and for one stream on stdin", () => {
    const plain = warnings(runInProcess(["check", root, "--format", "json"]).out).map((f) => f.message);
    const threaded = runCli(["check", root, "--format", "json"], undefined, { RIGGING_THREADS: "2" });
    expect(warnings(threaded.out).map((f) => f.message)).toEqual(plain);
    const stream = `${readFileSync(join(root, "apps", "runner", "manifests.yaml"), "utf8")}---\n${SYNC}`;
    const piped = runCli(["check", "-", "--format", "json"], stream);
    expect(warnings(piped.out).map((f) => f.message.replace(/\(<stdin>\)|\(-\)/, "(FILE)"))).toHaveLength(2);
  });

  it("a deployers list that names every identity: no warning; no GitOps object: no warning", () => {
    const admitted = repository();
    const manifests = join(admitted, "apps", "runner", "manifests.yaml");
    writeFileSync(manifests, readFileSync(manifests, "utf8").replaceAll(`"${FLUX}"`, `"${FLUX}", "${ARGO}", "${IMPERSONATED}"`));
    expect(readFileSync(manifests, "utf8")).toContain(ARGO);
    expect(warnings(runInProcess(["check", admitted, "--format", "json"]).out)).toEqual([]);
    expect(warnings(runInProcess(["check", join(root, "apps"), "--format", "json"]).out)).toEqual([]);
  });

  it("stdin, read once before judging, is reported as before where it cannot be read", () => {
    const r = runCli(["check", "-"], Buffer.from([0x61, 0, 0x62]));
    expect(r.code).toBe(2);
    expect(r.err).toContain("error <stdin>: is a binary file, expected YAML or JSON text");
  });

  it("a file that names a GitOps API group and does not parse: reported once, as before, and the rest judged", () => {
    const broken = repository();
    writeFileSync(join(broken, "clusters", "prod", "broken.yaml"), "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: [\n");
    const r = runInProcess(["check", broken, "--format", "json"]);
    expect(r.code).toBe(1);
    expect(warnings(r.out)).toHaveLength(2);
    expect(r.out.match(/broken\.yaml/g)).toHaveLength(1);
  });
});
