// check validates every object against the upstream Kubernetes schema of a
// target version (rule schema): the validator on upstream-style examples,
// --kube-version, removed, deprecated and custom resources, and render's
// own output for every example.
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { kubeIndex, type SchemaHit, schemaHits } from "../../src/check/kube-schema.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { renderFile } from "../../src/pipeline.ts";
import { runCli, runInProcess, tempFile } from "../support/cli.ts";

const known = kubeIndex()!;
const NEWEST = known.default;

/** An upstream-style Deployment (the Kubernetes docs' nginx example, with probes, env and resources). */
const deployment = () => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "nginx-deployment", labels: { app: "nginx" } },
  spec: {
    replicas: 3,
    strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: 1 } },
    selector: { matchLabels: { app: "nginx" } },
    template: {
      metadata: { labels: { app: "nginx" } },
      spec: {
        containers: [
          {
            name: "nginx",
            image: "nginx:1.14.2",
            ports: [{ containerPort: 80, name: "http" }],
            env: [{ name: "PORT", value: "80" }],
            resources: { requests: { cpu: 1, memory: "64Mi" }, limits: { cpu: "1500m", memory: 134217728 } },
            livenessProbe: { httpGet: { path: "/", port: "http" }, periodSeconds: 10 },
            readinessProbe: { tcpSocket: { port: 80 } },
          },
        ],
        volumes: [{ name: "cache", emptyDir: { sizeLimit: 1 } }],
      },
    },
  },
});

const hits = (object: unknown, version = NEWEST) => schemaHits([object as K8sObject], version, known).hits;
const shown = (list: SchemaHit[]) => list.map((h) => ({ path: h.path.join("."), severity: h.severity, message: h.message }));

describe("enums, as the API server's OpenAPI lists them", () => {
  it("a value outside its field's enum is an error naming the values, and the one it is near", () => {
    const d = deployment();
    Object.assign(d.spec.template.spec.containers[0], { imagePullPolicy: "Sometimes" });
    const service = { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { type: "LoadBalancr", ports: [{ port: 80 }] } };
    expect([...shown(hits(d)), ...shown(hits(service))]).toEqual([
      { path: "spec.template.spec.containers.0.imagePullPolicy", severity: "error", message: '"Sometimes" is not one of Always, IfNotPresent, Never' },
      {
        path: "spec.type",
        severity: "error",
        message: '"LoadBalancr" is not one of ClusterIP, ExternalName, LoadBalancer, NodePort (did you mean LoadBalancer?)',
      },
    ]);
  });

  it("judges a list's items by the enum, accepts each value listed, and leaves status alone (a create drops it)", () => {
    const policy = (types: string[]) => ({
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "p" },
      spec: { podSelector: {}, policyTypes: types },
    });
    expect(shown(hits(policy(["Ingress", "Egress"])))).toEqual([]);
    expect(shown(hits(policy(["Ingress", "egress"])))).toEqual([
      { path: "spec.policyTypes.1", severity: "error", message: '"egress" is not one of Egress, Ingress (did you mean Egress?)' },
    ]);
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "i" }] }, status: { phase: "Sleeping" } };
    expect(shown(hits(pod))).toEqual([]);
  });

  it("gives an older version the newest enums where the model is the same", () => {
    const d = deployment();
    Object.assign(d.spec.template.spec.containers[0], { imagePullPolicy: "Sometimes" });
    expect(shown(hits(d, "1.24")).map((h) => h.message)).toEqual(['"Sometimes" is not one of Always, IfNotPresent, Never']);
  });
});

describe("the schema validator on upstream examples", () => {
  it("accepts the example: quantities written as numbers, int-or-string as either, percentages", () => {
    expect(shown(hits(deployment()))).toEqual([]);
  });

  it("an unknown field (hostNetwrk) is an error at its path, with the field it is near", () => {
    const d = deployment();
    Object.assign(d.spec.template.spec, { hostNetwrk: true });
    expect(shown(hits(d))).toEqual([
      {
        path: "spec.template.spec.hostNetwrk",
        severity: "error",
        message: `unknown field "hostNetwrk": V1PodSpec of Kubernetes ${NEWEST} has no such field (did you mean hostNetwork?)`,
      },
    ]);
  });

  it('wrong types: replicas: "3", an env value 8080, a fractional integer', () => {
    const d = deployment();
    Object.assign(d.spec, { replicas: "3", minReadySeconds: 2.5 });
    Object.assign(d.spec.template.spec.containers[0].env[0], { value: 8080 });
    expect(shown(hits(d))).toEqual([
      { path: "spec.replicas", severity: "error", message: 'expected an integer, got string "3"' },
      { path: "spec.template.spec.containers.0.env.0.value", severity: "error", message: "expected a string, got number 8080" },
      { path: "spec.minReadySeconds", severity: "error", message: "expected an integer, got number 2.5" },
    ]);
  });

  it("a container without a name: a missing required field, at the container", () => {
    const d = deployment();
    delete (d.spec.template.spec.containers[0] as { name?: string }).name;
    expect(shown(hits(d))).toEqual([{ path: "spec.template.spec.containers.0", severity: "error", message: 'missing required field "name" (V1Container)' }]);
  });

  it("a quantity is a string or a number, never a mapping; an int-or-string never a boolean", () => {
    const d = deployment();
    Object.assign(d.spec.template.spec.containers[0].resources.limits, { cpu: { value: 1 } });
    Object.assign(d.spec.strategy.rollingUpdate, { maxSurge: true });
    expect(shown(hits(d)).map((h) => h.path)).toEqual(["spec.strategy.rollingUpdate.maxSurge", "spec.template.spec.containers.0.resources.limits.cpu"]);
  });

  it("metadata is strict too, and an explicit null is an unset field", () => {
    const d = deployment();
    Object.assign(d.metadata, { lables: { a: "b" }, creationTimestamp: null });
    expect(shown(hits(d)).map((h) => h.path)).toEqual(["metadata.lables"]);
  });

  it("names of Object.prototype are fields and kinds like any other: unknown, never a crash", () => {
    const d = deployment();
    Object.assign(d.spec, { constructor: 1, toString: "x" });
    expect(shown(hits(d)).map((h) => h.path)).toEqual(["spec.constructor", "spec.toString"]);
    const odd = { apiVersion: "constructor", kind: "name", metadata: { name: "x" } };
    expect(shown(hits(odd))).toEqual([
      { path: "apiVersion", severity: "error", message: `constructor name is not served by Kubernetes ${NEWEST}; it serves no name` },
    ]);
  });

  it("a list where a mapping belongs, and a mapping where a list belongs", () => {
    const d = deployment();
    Object.assign(d.spec.template.spec, { containers: { name: "x" }, nodeSelector: ["a"] });
    expect(shown(hits(d)).map((h) => `${h.path}: ${h.message}`)).toEqual([
      "spec.template.spec.containers: expected a list, got a mapping",
      "spec.template.spec.nodeSelector: expected a mapping, got a list",
    ]);
  });
});

describe("the target version", () => {
  const pdb = { apiVersion: "policy/v1beta1", kind: "PodDisruptionBudget", metadata: { name: "pdb" }, spec: { minAvailable: 1 } };

  it("bundles a version before 1.25 and the newest, each read from the client generated from its spec", () => {
    expect(Object.keys(known.versions)).toContain("1.24");
    expect(Object.keys(known.versions)).toContain("1.25");
    for (const [version, { spec }] of Object.entries(known.versions)) expect(spec).toMatch(new RegExp(`^(release-|v)${version.replace(".", "\\.")}`));
  });

  it("policy/v1beta1 PodDisruptionBudget: served (deprecated) by 1.24, removed in 1.25", () => {
    expect(shown(hits(pdb, "1.24"))).toEqual([
      {
        path: "apiVersion",
        severity: "warning",
        message: "policy/v1beta1 PodDisruptionBudget is deprecated: Kubernetes 1.24 serves it as policy/v1, and a later release stops serving policy/v1beta1",
      },
    ]);
    expect(shown(hits(pdb, "1.25"))).toEqual([
      {
        path: "apiVersion",
        severity: "error",
        message:
          "policy/v1beta1 PodDisruptionBudget is not served by Kubernetes 1.25: removed in 1.25 (1.24 served it); it serves PodDisruptionBudget as policy/v1",
      },
    ]);
  });

  it("a field added later (hostUsers) is unknown to 1.24 and valid at the newest", () => {
    const d = deployment();
    Object.assign(d.spec.template.spec, { hostUsers: false });
    expect(shown(hits(d, "1.24")).map((h) => h.path)).toEqual(["spec.template.spec.hostUsers"]);
    expect(hits(d)).toEqual([]);
  });

  it("extensions/v1beta1 Deployment is an error: a group without a dot is built in, never a custom resource", () => {
    const old = { ...deployment(), apiVersion: "extensions/v1beta1" };
    const { hits: found, unchecked } = schemaHits([old as K8sObject], NEWEST, known);
    expect(unchecked).toEqual([]);
    expect(shown(found)).toEqual([
      {
        path: "apiVersion",
        severity: "error",
        message: `extensions/v1beta1 Deployment is not served by Kubernetes ${NEWEST}; it serves Deployment as apps/v1`,
      },
    ]);
  });

  it("autoscaling/v2beta2 beside autoscaling/v2 is a warning naming v2", () => {
    const hpa = {
      apiVersion: "autoscaling/v2beta2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "h" },
      spec: { scaleTargetRef: { kind: "Deployment", name: "d" }, maxReplicas: 3 },
    };
    expect(shown(hits(hpa, "1.25"))).toEqual([
      expect.objectContaining({ severity: "warning", message: expect.stringContaining("serves it as autoscaling/v2") }),
    ]);
  });

  it("a custom resource (a dotted group no version serves) is unchecked, not failed; a kind a built-in dotted group lacks is an error", () => {
    const certificate = { apiVersion: "cert-manager.io/v1", kind: "Certificate", metadata: { name: "c" }, spec: { anything: 1 } };
    const bogus = { apiVersion: "networking.k8s.io/v1", kind: "Bogus", metadata: { name: "b" } };
    const { hits: found, unchecked } = schemaHits([certificate, bogus] as unknown as K8sObject[], NEWEST, known);
    expect(unchecked.map((o) => o.kind)).toEqual(["Certificate"]);
    expect(shown(found)).toEqual([
      { path: "apiVersion", severity: "error", message: `networking.k8s.io/v1 Bogus is not served by Kubernetes ${NEWEST}; it serves no Bogus` },
    ]);
  });
});

describe("rigging check --kube-version", () => {
  const manifest = `apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata:
  name: pdb
spec:
  minAvailable: 1
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: web
spec:
  secretName: web-tls
`;
  const file = tempFile(manifest, "pdb.yaml");

  it("the same file passes at 1.24 (a warning) and fails at 1.25 with the object's file and line", () => {
    const old = runInProcess(["check", file, "--kube-version", "1.24"]);
    expect(old.code).toBe(0);
    expect(old.out).toMatch(/^warning +\S+pdb\.yaml:1 +schema +PodDisruptionBudget\/pdb +apiVersion +policy\/v1beta1 PodDisruptionBudget is deprecated/m);
    const now = runInProcess(["check", file, "--kube-version", "1.25"]);
    expect(now.code).toBe(1);
    expect(now.out).toMatch(/^error +\S+pdb\.yaml:1 +schema +PodDisruptionBudget\/pdb +apiVersion +.*removed in 1\.25/m);
  });

  it("the custom resource is a skipped entry of rule schema in every format", () => {
    const text = runInProcess(["check", file, "--kube-version", "1.24"]);
    expect(text.out).toMatch(
      /^skipped +\S+pdb\.yaml:8 +schema +Certificate\/web +- +a custom resource: Kubernetes 1\.24 has no schema for cert-manager\.io\/v1/m,
    );
    const json = JSON.parse(runInProcess(["check", file, "--format", "json"]).out) as { ruleId: string; severity: string; line?: number }[];
    expect(json.filter((f) => f.severity === "skipped")).toEqual([expect.objectContaining({ ruleId: "schema", line: 8 })]);
    const sarif = JSON.parse(runInProcess(["check", file, "--format", "sarif"]).out);
    const notes = sarif.runs[0].invocations[0].toolExecutionNotifications.filter((n: { descriptor?: { id: string } }) => n.descriptor?.id === "schema");
    expect(notes).toEqual([expect.objectContaining({ message: { text: expect.stringContaining("Certificate/web: a custom resource") } })]);
    expect(runInProcess(["check", file, "--format", "junit"]).out).toMatch(
      /<testcase [^>]*name="schema Certificate\/web"[^>]*><skipped message="[^"]*a custom resource/,
    );
  });

  it("--exclude-rule schema leaves the findings out and counts them", () => {
    const r = runInProcess(["check", file, "--kube-version", "1.25", "--exclude-rule", "schema"]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/excluded by rule selection: 1 finding\(s\), 1 of them error\(s\) \(schema\)/);
  });

  it.each([
    ["1.25", "1.25"],
    ["v1.25", "1.25"],
    ["1.25.0", "1.25"],
    ["v1.25.16", "1.25"],
  ])("--kube-version %j is judged as its minor %s", (given, minor) => {
    const as = runInProcess(["check", "--format", "json", file, "--kube-version", given]);
    const plain = runInProcess(["check", "--format", "json", file, "--kube-version", minor]);
    expect(as.code).toBe(plain.code);
    expect(as.out).toBe(plain.out);
    expect(as.out).toContain("policy/v1beta1 PodDisruptionBudget is not served by Kubernetes 1.25");
  });

  it("bundles every minor from 1.24 to the newest, and judges each in every spelling as that minor", () => {
    const versions = Object.keys(known.versions);
    const newest = Math.max(...versions.map((v) => Number(v.split(".")[1])));
    expect(versions).toEqual(Array.from({ length: newest - 23 }, (_, i) => `1.${24 + i}`));
    expect(newest).toBeGreaterThanOrEqual(37);
    for (const minor of versions) {
      const plain = runInProcess(["check", "--format", "json", file, "--kube-version", minor]);
      expect(plain.out, minor).toContain(`Kubernetes ${minor}`);
      for (const given of [`v${minor}`, `${minor}.4`, `v${minor}.11`])
        expect(runInProcess(["check", "--format", "json", file, "--kube-version", given]).out).toBe(plain.out);
    }
  });

  it.each(["1.x", "v1", "1.25.", "1.25.0.1", "V1.25", "2.0", "1.23", "1.99", ""])("--kube-version %j is a usage error naming the known versions", (given) => {
    const r = runInProcess(["check", file, "--kube-version", given]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`rigging knows ${Object.keys(known.versions).join(", ")} (default ${NEWEST})`);
  });

  it("explain and rules know the ID; --help names the flag and its default", () => {
    expect(runInProcess(["explain", "schema"]).out).toMatch(/^schema {2}Every object is one the API server of the target version \(--kube-version\) accepts/);
    const rule = (JSON.parse(runInProcess(["rules", "--format", "json"]).out) as { id: string; opinions: unknown[] }[]).find((e) => e.id === "schema");
    expect(rule?.opinions).toHaveLength(1);
    expect(runInProcess(["check", "--help"]).out).toMatch(/--kube-version 1\.N[\s\S]*default: the newest bundled version/);
  });

  it("the built command reads the schemas the build wrote (dist/kube)", () => {
    const r = runCli(["check", file, "--kube-version", "1.25", "--format", "json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toEqual(expect.arrayContaining([expect.objectContaining({ ruleId: "schema", severity: "error", line: 1, path: "apiVersion" })]));
  });
});

describe("render's output is valid at every bundled version from its floor", () => {
  // A Compass Runner needs 1.32 or newer (CR-09); the other systems name no floor.
  const files = readdirSync("examples").map((name) => [`examples/${name}`, /compass(-runner)?\.yaml$/.test(name) ? 32 : 24] as const);
  it.each(files)("%s from 1.%i", (file, floor) => {
    const { objects } = renderFile(file, { notes: false });
    const versions = Object.keys(known.versions).filter((v) => Number(v.split(".")[1]) >= floor);
    expect(versions.length).toBeGreaterThanOrEqual(6);
    for (const version of versions) expect(shown(schemaHits(objects, version, known).hits), version).toEqual([]);
  });
});

describe("render's output is valid at the default version", () => {
  const files = [...readdirSync("examples").map((name) => `examples/${name}`), "values.example.json"];
  it.each(files)("%s", (file) => {
    const { objects } = renderFile(file, { notes: false });
    expect(objects.length).toBeGreaterThan(0);
    const { hits: found, unchecked } = schemaHits(objects, NEWEST, known);
    expect(shown(found)).toEqual([]);
    expect(unchecked).toEqual([]);
  });
});

describe("the Compass Runner's Kubernetes floor under --kube-version", () => {
  const runner = "test/fixtures/check/compass-runner/valid.yaml";
  const floor = (version: string) => {
    const r = runInProcess(["check", "--format", "json", "--kube-version", version, runner]);
    return { code: r.code, cr09: (JSON.parse(r.out) as { ruleId: string; path: string; message: string }[]).filter((f) => f.ruleId === "CR-09") };
  };

  it.each(Object.keys(known.versions))("%s: an error below 1.32, naming the floor and the feature gates; none from 1.32", (version) => {
    const { code, cr09 } = floor(version);
    if (Number(version.split(".")[1]) >= 32) {
      expect(cr09).toEqual([]);
      return;
    }
    expect(code).toBe(1);
    expect(cr09).toEqual([
      {
        ...cr09[0],
        path: "spec.template.spec.hostUsers",
        message: `Kubernetes ${version} (--kube-version) runs no pod in a user namespace as the Runner needs: it needs 1.33 or newer, or 1.32 with the feature gates UserNamespacesSupport=true and ProcMountType=true on the API server and the kubelet`,
      },
    ]);
  });

  it("a patch version is judged as its minor: v1.30.4 is below the floor", () => {
    const spelled = floor("v1.30.4");
    expect(spelled.cr09.map((f) => f.message)).toEqual(floor("1.30").cr09.map((f) => f.message));
    expect(spelled.cr09).toHaveLength(1);
  });
});
