// Rootpilot runner spellings (issue 39), made from the rendered examples by edits:
// an equivalent spelling keeps check's verdict (none), and a broken value is caught
// in every spelling; what the input cannot show is not judged.
import { describe, expect, it } from "vitest";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { configMap, envToConfigMap, example, objectOf, podOf, verdict } from "../../support/spellings.ts";
import { EKS, GKE, KIND, SPELLINGS, errorsOf, of, runner, withEnv } from "./spelling-edits.ts";

describe("settings from a ConfigMap in the input or through $(VAR) are judged (RP-03, RP-06)", () => {
  const cases: [file: string, name: string][] = [
    [EKS, "RUNNER_ATTESTATION_MODE"],
    [EKS, "AWS_REGION"],
    [EKS, "RUNNER_DRAIN_TIMEOUT_MS"],
    [EKS, "RUNNER_LEARNED_STORE_PATH"],
    [GKE, "RUNNER_ATTESTATION_MODE"],
    [GKE, "RUNNER_DRAIN_TIMEOUT_MS"],
    [GKE, "OTEL_EXPORTER_OTLP_ENDPOINT"],
  ];
  for (const [file, name] of cases) {
    for (const [spelling, edit] of Object.entries(SPELLINGS)) {
      if (spelling === "as written") continue;
      it(`${file}: ${name} ${spelling} keeps the verdict`, () => {
        const objects = example(file);
        edit(objects, name);
        expect(verdict(objects)).toEqual(verdict(example(file)));
      });
    }
  }

  const broken: [what: string, file: string, name: string, value: string, id: string][] = [
    ["a drain past the grace period", EKS, "RUNNER_DRAIN_TIMEOUT_MS", "400000", "RP-03"],
    ["a drain that is not a whole number", GKE, "RUNNER_DRAIN_TIMEOUT_MS", "2m", "RP-03"],
    ["eks-oidc", EKS, "RUNNER_ATTESTATION_MODE", "eks-oidc", "RP-06"],
    ["gke-oidc without a token volume", EKS, "RUNNER_ATTESTATION_MODE", "gke-oidc", "RP-06"],
    ["an unknown mode", GKE, "RUNNER_ATTESTATION_MODE", "gke", "RP-06"],
    ["an empty AWS_REGION", EKS, "AWS_REGION", "", "RP-06"],
    ["a flush interval of 0", GKE, "RUNNER_LEARNED_FLUSH_INTERVAL_MS", "0", "RP-04"],
    ["an endpoint without a scheme", GKE, "OTEL_EXPORTER_OTLP_ENDPOINT", "otel-collector:4318", "RP-10"],
  ];
  for (const [what, file, name, value, id] of broken) {
    for (const [spelling, edit] of Object.entries(SPELLINGS)) {
      // An empty env value is no value to move: the ConfigMap holds the empty string all the same.
      it(`${file}: ${what} is ${id} ${spelling}`, () => {
        const objects = withEnv(name, value, file);
        edit(objects, name);
        expect(errorsOf(verdict(objects), id)).not.toEqual([]);
      });
    }
  }

  it("env wins over envFrom, as the kubelet builds the list: a bad drain in the ConfigMap under a good env entry passes", () => {
    const objects = example(EKS);
    envToConfigMap(objects, KIND, "envFrom", ["RUNNER_DRAIN_TIMEOUT_MS"]);
    objectOf(objects, "ConfigMap").data.RUNNER_DRAIN_TIMEOUT_MS = "400000";
    runner(objects).env.push({ name: "RUNNER_DRAIN_TIMEOUT_MS", value: "300000" });
    expect(verdict(objects)).toEqual([]);
  });

  it("and a bad env entry over a good ConfigMap is caught", () => {
    const objects = example(EKS);
    envToConfigMap(objects, KIND, "envFrom", ["RUNNER_DRAIN_TIMEOUT_MS"]);
    runner(objects).env.push({ name: "RUNNER_DRAIN_TIMEOUT_MS", value: "400000" });
    expect(errorsOf(verdict(objects), "RP-03")).not.toEqual([]);
  });
});

describe("what the input cannot show is not judged, never an error", () => {
  it("settings from a ConfigMap outside the input (envFrom)", () => {
    const objects = withEnv("RUNNER_DRAIN_TIMEOUT_MS", "400000", EKS);
    const map = envToConfigMap(objects, KIND, "envFrom", ["RUNNER_DRAIN_TIMEOUT_MS", "RUNNER_ATTESTATION_MODE", "AWS_REGION"]);
    objects.splice(objects.indexOf(map), 1);
    expect(verdict(objects).filter((line) => line.includes(" error "))).toEqual([]);
  });

  it("settings from a ConfigMap outside the input (configMapKeyRef)", () => {
    const objects = withEnv("RUNNER_ATTESTATION_MODE", "nonsense", GKE);
    const map = envToConfigMap(objects, KIND, "configMapKeyRef", ["RUNNER_ATTESTATION_MODE", "RUNNER_DRAIN_TIMEOUT_MS"]);
    objects.splice(objects.indexOf(map), 1);
    expect(verdict(objects).filter((line) => line.includes(" error "))).toEqual([]);
  });

  it("a setting kept in a Secret of the input, by envFrom", () => {
    const objects = withEnv("RUNNER_DRAIN_TIMEOUT_MS", "400000", EKS);
    const map = envToConfigMap(objects, KIND, "envFrom", ["RUNNER_DRAIN_TIMEOUT_MS"]);
    map.kind = "Secret";
    (map as { stringData?: unknown; data?: unknown }).stringData = (map as { data?: unknown }).data;
    delete (map as { data?: unknown }).data;
    runner(objects).envFrom = [{ secretRef: { name: map.metadata.name } }];
    expect(of(verdict(objects), "RP-03")).toEqual([]);
  });

  for (const [what, source] of [
    ["a Secret's key", { secretKeyRef: { name: "runner-settings", key: "drain" } }],
    ["a fieldRef", { fieldRef: { fieldPath: "metadata.annotations['drain']" } }],
  ] as const) {
    it(`$(VAR) of ${what}`, () => {
      const objects = withEnv("RUNNER_DRAIN_TIMEOUT_MS", "$(DRAIN)", EKS);
      runner(objects).env.unshift({ name: "DRAIN", valueFrom: source });
      expect(of(verdict(objects), "RP-03")).toEqual([]);
    });
  }

  it("$(VAR) of a variable an envFrom outside the input may set", () => {
    const objects = withEnv("RUNNER_ATTESTATION_MODE", "$(MODE)", EKS);
    runner(objects).envFrom = [{ configMapRef: { name: "cluster-settings" } }];
    expect(of(verdict(objects), "RP-06")).toEqual([]);
  });

  it("but $(VAR) of a variable defined nowhere stays as written, and is judged so", () => {
    const objects = withEnv("RUNNER_DRAIN_TIMEOUT_MS", "$(DRAIN)", EKS);
    expect(errorsOf(verdict(objects), "RP-03")).not.toEqual([]);
  });
});

describe("the runner's ServiceAccount and its namespace (RP-06 on EKS)", () => {
  const ARN_ERROR = 'RP-06 error ServiceAccount/rootpilot-runner metadata.annotations["eks.amazonaws.com/role-arn"]';
  const brokenArn = (objects: K8sObject[]) => {
    objectOf(objects, "ServiceAccount").metadata.annotations!["eks.amazonaws.com/role-arn"] = "arn:aws:iam::1234:role/x";
    return objects;
  };
  /** The verdict without the stage's own note on an omitted namespace. */
  const rules = (objects: K8sObject[]) => verdict(objects).filter((line) => !line.startsWith("objects "));

  for (const kind of ["ServiceAccount", "Deployment", "NetworkPolicy"]) {
    it(`${kind} with its namespace omitted: found in the namespace the others name, verdict kept`, () => {
      const objects = example(EKS);
      delete objectOf(objects, kind).metadata.namespace;
      expect(rules(objects)).toEqual([]);
    });
  }

  for (const kind of ["ServiceAccount", "Deployment"]) {
    it(`${kind} with its namespace omitted: a broken role ARN is still caught`, () => {
      const objects = brokenArn(example(EKS));
      delete objectOf(objects, kind).metadata.namespace;
      expect(errorsOf(verdict(objects), "RP-06")).toEqual([ARN_ERROR]);
    });
  }

  it("a ServiceAccount in another namespace than the pods is named (IRSA never reads it)", () => {
    const objects = example(EKS);
    objectOf(objects, "ServiceAccount").metadata.namespace = "rootpilot-identity";
    expect(verdict(objects)).toEqual(["RP-06 warning ServiceAccount/rootpilot-runner metadata.namespace"]);
  });

  it("and its role is not judged as the pods' own", () => {
    const objects = brokenArn(example(EKS));
    objectOf(objects, "ServiceAccount").metadata.namespace = "rootpilot-identity";
    expect(of(verdict(objects), "RP-06")).toEqual(["RP-06 warning ServiceAccount/rootpilot-runner metadata.namespace"]);
  });

  it("an omitted namespace while the named ones disagree: said, not judged", () => {
    const objects = brokenArn(example(EKS));
    delete objectOf(objects, "ServiceAccount").metadata.namespace;
    objects.push(configMap({ metadata: { namespace: "elsewhere" } } as K8sObject, "unrelated", {}));
    expect(of(verdict(objects), "RP-06")).toEqual(["RP-06 warning ServiceAccount/rootpilot-runner metadata"]);
  });

  it("the pods' own ServiceAccount is read when a namesake lives elsewhere", () => {
    const objects = brokenArn(example(EKS));
    const namesake = structuredClone(objectOf(objects, "ServiceAccount"));
    namesake.metadata.namespace = "other";
    objects.unshift(namesake);
    expect(errorsOf(verdict(objects), "RP-06")).toEqual([ARN_ERROR]);
  });

  it("a ServiceAccount outside the input is not judged", () => {
    const objects = example(EKS);
    objects.splice(objects.indexOf(objectOf(objects, "ServiceAccount")), 1);
    expect(of(verdict(objects), "RP-06")).toEqual([]);
  });

  it("the deprecated serviceAccount field names the same ServiceAccount", () => {
    const objects = brokenArn(example(EKS));
    const pod = podOf(objects, KIND);
    pod.serviceAccount = pod.serviceAccountName;
    delete pod.serviceAccountName;
    expect(errorsOf(verdict(objects), "RP-06")).toEqual([ARN_ERROR]);
  });
});

describe("NetworkPolicy by meaning (RP-08)", () => {
  type Rule = { to?: Record<string, any>[]; ports?: { protocol?: string; port: number }[] };
  const policy = (objects: K8sObject[]) => objectOf(objects, "NetworkPolicy") as K8sObject & { spec: { podSelector: any; egress: Rule[] } };
  /** The verdict with the control plane's rule sent to `cidrs` instead. */
  const controlPlaneTo = (file: string, cidrs: string[]) => {
    const objects = example(file);
    const rule = policy(objects).spec.egress.find((r) => r.to?.[0]?.ipBlock?.cidr === "203.0.113.40/32")!;
    rule.to = cidrs.map((cidr) => ({ ipBlock: { cidr } }));
    return verdict(objects);
  };
  const ANY = "RP-08 warning NetworkPolicy/rootpilot-runner";

  for (const file of [EKS, GKE]) {
    const everywhere = controlPlaneTo(file, ["0.0.0.0/0"]);

    it(`${file}: egress to 0.0.0.0/0 is the any-destination warning`, () => {
      expect(everywhere.filter((line) => line.startsWith(ANY))).not.toEqual([]);
    });

    for (const cidrs of [["::/0"], ["0::/0"], ["10.0.0.0/0"], ["0.0.0.0/1", "128.0.0.0/1"], ["::/1", "8000::/1"], ["000.000.000.000/0"]]) {
      it(`${file}: egress to ${cidrs.join(" + ")} is everywhere too`, () => {
        expect(controlPlaneTo(file, cidrs).filter((line) => line.startsWith(ANY))).not.toEqual([]);
      });
    }

    for (const cidrs of [["0.0.0.0/1"], ["203.0.113.40/32", "203.0.113.41/32"], ["0.0.0.0/1", "128.0.0.0/2"]]) {
      it(`${file}: egress to ${cidrs.join(" + ")} is not everywhere`, () => {
        expect(controlPlaneTo(file, cidrs)).toEqual([]);
      });
    }

    it(`${file}: the policy selecting the runner by matchExpressions keeps the verdict`, () => {
      const objects = example(file);
      const selector = policy(objects).spec.podSelector;
      selector.matchExpressions = Object.entries(selector.matchLabels).map(([key, value]) => ({ key, operator: "In", values: [value, "other"] }));
      delete selector.matchLabels;
      expect(verdict(objects)).toEqual([]);
    });

    it(`${file}: the DNS peer by matchExpressions keeps the verdict`, () => {
      const objects = example(file);
      const peer = policy(objects).spec.egress[0].to![0];
      for (const field of ["namespaceSelector", "podSelector"]) {
        peer[field] = {
          matchExpressions: Object.entries(peer[field].matchLabels).map(([key, value]) => ({ key, operator: "In", values: [value] })),
        };
      }
      expect(verdict(objects)).toEqual([]);
    });

    it(`${file}: a policy whose matchExpressions leave the runner out selects nothing`, () => {
      const objects = example(file);
      const selector = policy(objects).spec.podSelector;
      selector.matchExpressions = [{ key: "app.kubernetes.io/name", operator: "NotIn", values: ["rootpilot-runner"] }];
      delete selector.matchLabels;
      expect(verdict(objects)).toEqual(["RP-08 warning Deployment/rootpilot-runner metadata.name"]);
    });

    it(`${file}: a selector operator Kubernetes does not know is an error, not a crash`, () => {
      const objects = example(file);
      policy(objects).spec.podSelector.matchExpressions = [{ key: "app.kubernetes.io/name", operator: "Equals", values: ["rootpilot-runner"] }];
      expect(verdict(objects).some((line) => line.includes(" error NetworkPolicy/rootpilot-runner spec.podSelector.matchExpressions[0].operator"))).toBe(true);
    });
  }
});
