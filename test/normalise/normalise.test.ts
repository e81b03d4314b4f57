// The normalising stage on its own: the kubelet's expansion, the environment it
// builds, one namespace rule, one object per identity, and bad input.
import { describe, expect, it } from "vitest";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { normalise } from "../../src/normalise/index.ts";
import { EXPANDED_LIMIT, expand } from "../../src/normalise/expand.ts";
import { expectLinear } from "../support/linear.ts";

const vars: Record<string, string> = { A: "a", B: "bee" };
const known = (name: string) => vars[name];

describe("expand: the kubelet's $(VAR)", () => {
  it.each([
    ["$(A)", "a"],
    ["x$(A)y$(B)z", "xaybeez"],
    ["$$(A)", "$(A)"],
    ["$(MISSING)", "$(MISSING)"],
    ["$(A", "$(A"],
    ["$", "$"],
    ["$x", "$x"],
    ["a$$b", "a$b"],
    ["$()", "$()"],
  ])("%s → %s", (text, want) => {
    expect(expand(text, known)).toBe(want);
  });

  it("an expansion past the limit is refused, not built", () => {
    const long = "x".repeat(EXPANDED_LIMIT / 4);
    expect(expand("$(L)$(L)$(L)$(L)$(L)", () => long)).toBeUndefined();
  });

  it("is linear in unterminated references", () => {
    expectLinear([20_000, 40_000, 80_000, 160_000], (size) => {
      const text = "$(".repeat(size);
      return () => void expand(text, known);
    });
  });
});

function pod(env: unknown[], extra: Record<string, unknown> = {}, namespace: string | null = "ns"): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", ...(namespace ? { namespace } : {}) },
    spec: { containers: [{ name: "c", image: "i:1", env, ...extra }] },
  } as K8sObject;
}

const configMap = (name: string, data: Record<string, string>, namespace = "ns"): K8sObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace },
  data,
});

const containerOf = (objects: K8sObject[]) => (objects.find((o) => o.kind === "Pod") as any).spec.containers[0];

describe("the environment as the kubelet builds it", () => {
  it("envFrom first, later sources win, env entries over both, prefix applied", () => {
    const input = [
      pod([{ name: "B", value: "env" }], {
        envFrom: [{ configMapRef: { name: "one" } }, { configMapRef: { name: "two" }, prefix: "P_" }, { configMapRef: { name: "one" } }],
      }),
      configMap("one", { A: "1", B: "1" }),
      configMap("two", { A: "2" }),
    ];
    const { objects, notes } = normalise(input);
    expect(containerOf(objects).env).toEqual([
      { name: "A", value: "1" },
      { name: "P_A", value: "2" },
      { name: "B", value: "env" },
    ]);
    expect(containerOf(objects).envFrom).toBeUndefined();
    expect(notes.map((n) => n.message)).toEqual([expect.stringMatching(/ConfigMap one is read by two envFrom entries/)]);
    // The input is left as it was.
    expect((input[0] as any).spec.containers[0].envFrom).toHaveLength(3);
  });

  it("a ConfigMap the input does not hold stays a reference (not judged)", () => {
    const { objects } = normalise([
      pod([{ name: "X", valueFrom: { configMapKeyRef: { name: "elsewhere", key: "x" } } }], { envFrom: [{ configMapRef: { name: "gone" } }] }),
    ]);
    expect(containerOf(objects).env).toEqual([{ name: "X", valueFrom: { configMapKeyRef: { name: "elsewhere", key: "x" } } }]);
    expect(containerOf(objects).envFrom).toEqual([{ configMapRef: { name: "gone" } }]);
  });

  it("a Secret's keys become references to it, never values", () => {
    const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "ns" }, stringData: { PASSWORD: "hunter2" } } as K8sObject;
    const { objects } = normalise([pod([], { envFrom: [{ secretRef: { name: "s" } }] }), secret]);
    expect(containerOf(objects).env).toEqual([{ name: "PASSWORD", valueFrom: { secretKeyRef: { name: "s", key: "PASSWORD" } } }]);
    expect(JSON.stringify(containerOf(objects))).not.toContain("hunter2");
  });

  it("$(VAR) sees earlier entries only, and args see them all", () => {
    const { objects } = normalise([
      pod(
        [
          { name: "A", value: "x$(B)" },
          { name: "B", value: "b" },
          { name: "C", value: "$(B)/c" },
        ],
        { args: ["--flag=$(C)", "$$(C)"] },
      ),
    ]);
    expect(containerOf(objects).env.map((e: { value: string }) => e.value)).toEqual(["x$(B)", "b", "b/c"]);
    expect(containerOf(objects).args).toEqual(["--flag=b/c", "$(C)"]);
  });

  it("a self-reference is named, and left as the kubelet leaves it", () => {
    const { objects, notes } = normalise([pod([{ name: "A", value: "$(A)" }])]);
    expect(containerOf(objects).env).toEqual([{ name: "A", value: "$(A)" }]);
    expect(notes).toMatchObject([{ severity: "warning", message: expect.stringMatching(/A refers to itself/) }]);
  });

  it("a cycle, or any reference to a later entry, is named and left as the kubelet leaves it", () => {
    const { objects, notes } = normalise([
      pod([
        { name: "A", value: "$(B)" },
        { name: "B", value: "$(A)" },
      ]),
    ]);
    expect(containerOf(objects).env).toEqual([
      { name: "A", value: "$(B)" },
      { name: "B", value: "$(B)" },
    ]);
    expect(notes).toMatchObject([
      { severity: "warning", path: ["spec", "containers", 0, "env", 0, "value"], message: expect.stringMatching(/defined after it/) },
    ]);
  });

  it("a missing ConfigMap key stops the container (an error), an optional one sets nothing", () => {
    const { objects, notes } = normalise([
      pod([
        { name: "A", valueFrom: { configMapKeyRef: { name: "one", key: "nope" } } },
        { name: "B", valueFrom: { configMapKeyRef: { name: "one", key: "nope", optional: true } } },
      ]),
      configMap("one", { A: "1" }),
    ]);
    expect(containerOf(objects).env).toEqual([]);
    expect(notes).toMatchObject([{ severity: "error", path: ["spec", "containers", 0, "env", 0, "valueFrom", "configMapKeyRef", "key"] }]);
  });

  it("findings on a moved variable point where it was written", () => {
    const { objects, provenance } = normalise([
      pod([{ name: "B", value: "b" }], { envFrom: [{ configMapRef: { name: "one" } }] }),
      configMap("one", { A: "1" }),
    ]);
    const normalised = objects.find((o) => o.kind === "Pod")!;
    expect(provenance.written(normalised, ["spec", "containers", 0, "env", 0, "value"]).path).toEqual(["spec", "containers", 0, "envFrom", 0, "value"]);
    expect(provenance.written(normalised, ["spec", "containers", 0, "env", 1, "value"]).path).toEqual(["spec", "containers", 0, "env", 0, "value"]);
  });

  it("a chain of references that doubles is cut, with a note, in bounded time", () => {
    const env = [{ name: "V0", value: "x".repeat(1000) }];
    for (let i = 1; i < 40; i++) env.push({ name: `V${i}`, value: `$(V${i - 1})$(V${i - 1})` });
    const { notes } = normalise([pod(env)]);
    expect(notes.some((n) => /expands past/.test(n.message))).toBe(true);
  });
});

describe("namespaces and identity", () => {
  it("an omitted namespace is the one every named object agrees on, with a warning", () => {
    const { objects, notes } = normalise([pod([], {}, null), configMap("one", {}, "default")]);
    expect(objects[0].metadata.namespace).toBe("default");
    expect(notes).toMatchObject([{ severity: "warning", message: expect.stringMatching(/judged in default/) }]);
  });

  it("named namespaces that disagree leave an omitted one apart", () => {
    const { objects, notes } = normalise([pod([], {}, null), configMap("one", {}, "a"), configMap("two", {}, "b")]);
    expect(objects[0].metadata.namespace).toBeUndefined();
    expect(notes[0].message).toMatch(/while others name a, b/);
  });

  it("cluster-scoped objects take no namespace", () => {
    const role = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "r" } } as K8sObject;
    const { objects } = normalise([role, configMap("one", {}, "a")]);
    expect(objects[0].metadata.namespace).toBeUndefined();
  });

  it("the same object twice is judged once; copies that differ are an error naming it", () => {
    const same = normalise([configMap("one", { A: "1" }), configMap("one", { A: "1" })]);
    expect(same.objects).toHaveLength(1);
    expect(same.notes).toMatchObject([{ severity: "warning" }]);
    const differ = normalise([configMap("one", { A: "1" }), configMap("one", { A: "2" })]);
    expect(differ.objects).toMatchObject([{ data: { A: "2" } }]);
    expect(differ.notes).toMatchObject([{ severity: "error", message: expect.stringMatching(/copies differ/) }]);
  });

  it("a selector operator Kubernetes does not know is an error", () => {
    const policy = {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "n", namespace: "ns" },
      spec: { podSelector: { matchExpressions: [{ key: "a", operator: "Equals", values: ["x"] }] } },
    } as K8sObject;
    expect(normalise([policy]).notes).toMatchObject([{ severity: "error", path: ["spec", "podSelector", "matchExpressions", 0, "operator"] }]);
  });
});

describe("defaults", () => {
  it("fills the pod's and the token's defaults and copies serviceAccount", () => {
    const input = pod([], { volumeMounts: [{ name: "t", mountPath: "/t" }] });
    (input as any).spec.serviceAccount = "sa";
    (input as any).spec.volumes = [{ name: "t", projected: { sources: [{ serviceAccountToken: { path: "token" } }] } }];
    const spec = (normalise([input]).objects[0] as any).spec;
    expect(spec).toMatchObject({ serviceAccountName: "sa", serviceAccount: "sa", restartPolicy: "Always", dnsPolicy: "ClusterFirst" });
    expect(spec.volumes[0].projected).toEqual({ defaultMode: 420, sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 3600 } }] });
    expect(spec.containers[0]).toMatchObject({ imagePullPolicy: "IfNotPresent", volumeMounts: [{ name: "t", mountPath: "/t", readOnly: true }] });
  });
});
