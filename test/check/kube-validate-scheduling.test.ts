// Where a pod may run, as kube-apiserver validates it: affinity terms and tolerations, an object it
// accepts and one it refuses for each check, and the release that judges a required term's values.
import { describe, it } from "vitest";
import { accepts, type Obj, refuses } from "../support/api-server.ts";

const pod = (spec: Obj): Obj => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web" },
  spec: { containers: [{ name: "web", image: "nginx:1.27" }], ...spec },
});
const required = (term: Obj) => pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } } } });
const zone = (operator: string, values?: string[]) => ({ key: "topology.kubernetes.io/zone", operator, ...(values ? { values } : {}) });
const TERM = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
const anti = (term: Obj) =>
  pod({ affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "web" } }, ...term }] } } });
const ANTI = "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution.0";
const tolerating = (t: Obj) => pod({ tolerations: [t] });

describe("tolerations (ValidateTolerations)", () => {
  it("match every taint only with Exists and no key", () => {
    accepts(tolerating({ operator: "Exists" }));
    refuses(tolerating({ key: "", operator: "Equal", value: "x" }), "spec.tolerations.0.operator", 'its operator must be "Exists"');
  });

  it("take a value by operator, a label key, and tolerationSeconds only for NoExecute", () => {
    accepts(tolerating({ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoExecute", tolerationSeconds: 30 }));
    refuses(tolerating({ key: "dedicated", operator: "Exists", value: "gpu" }), "spec.tolerations.0.operator", "takes no value");
    refuses(tolerating({ key: "dedicated", value: "-gpu-" }), "spec.tolerations.0.operator", "is not a valid label value");
    refuses(tolerating({ key: "bad key!", operator: "Exists" }), "spec.tolerations.0.key", "is not a valid label key");
    refuses(
      tolerating({ key: "dedicated", value: "gpu", effect: "NoSchedule", tolerationSeconds: 30 }),
      "spec.tolerations.0.effect",
      "only with effect NoExecute",
    );
  });
});

describe("node affinity (validateNodeAffinity)", () => {
  it("has at least one required term, each requirement with the values its operator takes", () => {
    accepts(required({ matchExpressions: [zone("In", ["eu-west-1a"])] }));
    refuses(
      pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } } }),
      TERM,
      "at least one node selector term",
    );
    refuses(required({ matchExpressions: [zone("In", [])] }), `${TERM}.0.matchExpressions.0.values`, "needs at least one value");
    refuses(required({ matchExpressions: [zone("DoesNotExist", ["a"])] }), `${TERM}.0.matchExpressions.0.values`, "takes no values");
    refuses(required({ matchExpressions: [zone("Lt", ["1", "2"])] }), `${TERM}.0.matchExpressions.0.values`, "exactly one value");
    refuses(required({ matchExpressions: [{ key: "bad key!", operator: "Exists" }] }), `${TERM}.0.matchExpressions.0.key`, "not a valid label key");
  });

  it("judges a required term's label values from 1.32, and never a preferred one's", () => {
    refuses(required({ matchExpressions: [zone("In", ["-bad-"])] }), `${TERM}.0.matchExpressions.0.values.0`, "not a valid label value", "1.32");
    accepts(required({ matchExpressions: [zone("In", ["-bad-"])] }), "1.29");
    accepts(
      pod({
        affinity: {
          nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, preference: { matchExpressions: [zone("In", ["-ok-"])] } }] },
        },
      }),
    );
  });

  it("selects by field only on metadata.name, one value, a node name", () => {
    accepts(required({ matchFields: [{ key: "metadata.name", operator: "In", values: ["node-1"] }] }));
    refuses(required({ matchFields: [{ key: "metadata.namespace", operator: "In", values: ["x"] }] }), `${TERM}.0.matchFields.0.key`, "only metadata.name is");
    refuses(required({ matchFields: [{ key: "metadata.name", operator: "In", values: ["a", "b"] }] }), `${TERM}.0.matchFields.0.values`, "exactly one value");
    refuses(
      required({ matchFields: [{ key: "metadata.name", operator: "In", values: ["Node_1"] }] }),
      `${TERM}.0.matchFields.0.values.0`,
      "not a valid node name",
    );
  });

  it("weighs preferred terms from 1 to 100", () => {
    const weighted = (weight: number) =>
      pod({
        affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight, preference: { matchExpressions: [zone("In", ["a"])] } }] } },
      });
    accepts(weighted(100));
    refuses(weighted(0), "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution.0.weight", "outside 1-100");
  });
});

describe("pod affinity and anti-affinity (validatePodAffinityTerm)", () => {
  it("needs a topologyKey that is a label key, namespaces that are labels, and valid selectors", () => {
    accepts(anti({ topologyKey: "kubernetes.io/hostname" }));
    refuses(anti({ topologyKey: "" }), `${ANTI}.topologyKey`, "topologyKey cannot be empty");
    refuses(anti({ topologyKey: "bad key!" }), `${ANTI}.topologyKey`, "not a valid label key");
    refuses(anti({ topologyKey: "kubernetes.io/hostname", namespaces: ["Bad_NS"] }), `${ANTI}.namespace`, "not a valid namespace");
    refuses(
      anti({ topologyKey: "kubernetes.io/hostname", labelSelector: { matchExpressions: [{ key: "app", operator: "In", values: [] }] } }),
      `${ANTI}.labelSelector.matchExpressions.0.values`,
      "needs at least one value",
    );
  });
});

describe("topology spread constraints (validateTopologySpreadConstraints)", () => {
  const spread = (extra: Obj = {}) => ({
    maxSkew: 1,
    topologyKey: "topology.kubernetes.io/zone",
    whenUnsatisfiable: "DoNotSchedule",
    labelSelector: { matchLabels: { app: "web" } },
    ...extra,
  });
  const spreading = (...constraints: Obj[]) => pod({ topologySpreadConstraints: constraints });
  const T = "spec.topologySpreadConstraints";

  it("skew by a positive amount over a named topology, each key and action once", () => {
    accepts(spreading(spread(), spread({ whenUnsatisfiable: "ScheduleAnyway" })));
    refuses(spreading(spread({ maxSkew: 0 })), `${T}.0.maxSkew`, "greater than zero");
    refuses(spreading(spread({ topologyKey: "" })), `${T}.0.topologyKey`, "cannot be empty");
    refuses(spreading(spread(), spread({ maxSkew: 2 })), `${T}.1`, "keep one");
  });

  it("take minDomains only with DoNotSchedule, from 1.27; a valid selector from 1.29", () => {
    accepts(spreading(spread({ minDomains: 3 })));
    refuses(spreading(spread({ minDomains: 0 })), `${T}.0.minDomains`, "greater than zero");
    refuses(spreading(spread({ minDomains: 2, whenUnsatisfiable: "ScheduleAnyway" })), `${T}.0.minDomains`, "only with whenUnsatisfiable: DoNotSchedule");
    accepts(spreading(spread({ minDomains: 2, whenUnsatisfiable: "ScheduleAnyway" })), "1.25");
    const badSelector = spreading(spread({ labelSelector: { matchExpressions: [{ key: "app", operator: "Exists", values: ["web"] }] } }));
    refuses(badSelector, `${T}.0.labelSelector.matchExpressions.0.values`, "takes no values");
    accepts(badSelector, "1.24");
  });
});
