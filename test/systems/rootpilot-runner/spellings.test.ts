// Rootpilot runner spellings (issue 39), made from the rendered examples by edits:
// an equivalent spelling keeps check's verdict (none), and a broken value is caught
// in every spelling; what the input cannot show is not judged.
import { describe, expect, it } from "vitest";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { configMap, envToConfigMap, example, objectOf, podOf, verdict } from "../../support/spellings.ts";

const EKS = "rootpilot-eks.yaml";
const GKE = "rootpilot-gke.yaml";
const KIND = "Deployment";

type Env = { name: string; value?: string; valueFrom?: unknown };

function runner(objects: K8sObject[]): { env: Env[]; envFrom?: unknown[]; volumeMounts: { name: string; mountPath: string }[]; workingDir?: string } {
  return podOf(objects, KIND).containers[0];
}

/** The example with one variable set (added when absent). */
function withEnv(name: string, value: string, file: string): K8sObject[] {
  const objects = example(file);
  const env = runner(objects).env;
  const entry = env.find((e) => e.name === name);
  if (entry) entry.value = value;
  else env.push({ name, value });
  return objects;
}

/** The ways a variable reaches the runner: as written, from a ConfigMap in the input, or through $(VAR). */
const SPELLINGS: Record<string, (objects: K8sObject[], name: string) => void> = {
  "as written": () => {},
  "through envFrom of a ConfigMap": (objects, name) => void envToConfigMap(objects, KIND, "envFrom", [name]),
  "through configMapKeyRef": (objects, name) => void envToConfigMap(objects, KIND, "configMapKeyRef", [name]),
  "through $(VAR)": (objects, name) => {
    const env = runner(objects).env;
    const entry = env.find((e) => e.name === name)!;
    env.unshift({ name: "RIGGING_TEST_PART", value: entry.value });
    entry.value = "$(RIGGING_TEST_PART)";
  },
};

/** The lines of a verdict that name `id`. */
const of = (lines: string[], id: string) => lines.filter((line) => line.startsWith(`${id} `));
const errorsOf = (lines: string[], id: string) => lines.filter((line) => line.startsWith(`${id} error `));

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

describe("paths as the kubelet cleans mounts and Node opens files (RP-01, RP-05, RP-06)", () => {
  const TOKEN = "/var/run/secrets/tokens/gke-oidc/token";
  const STORE = "/var/lib/rootpilot/learned.db";
  const mountOf = (objects: K8sObject[], name: string) => runner(objects).volumeMounts.find((m) => m.name === name)!;

  const sameToken = [
    "/var/run/secrets/tokens/gke-oidc//token",
    "/var/run/secrets/tokens/./gke-oidc/token",
    "//var/run/secrets/tokens/gke-oidc/token",
    "/var/run/secrets/tokens/other/../gke-oidc/token",
  ];
  for (const path of sameToken) {
    for (const [spelling, edit] of Object.entries(SPELLINGS)) {
      it(`RUNNER_GKE_TOKEN_PATH ${path} ${spelling} is the default token`, () => {
        const objects = withEnv("RUNNER_GKE_TOKEN_PATH", path, GKE);
        edit(objects, "RUNNER_GKE_TOKEN_PATH");
        expect(verdict(objects)).toEqual([]);
      });
    }
  }

  const otherFile: [path: string, why: string][] = [
    [`${TOKEN}/`, "a trailing slash asks for a directory"],
    [`${TOKEN}/.`, "a trailing /. asks for a directory"],
    ["/var/run/secrets/tokens/gke-oidc/../token", "`..` leaves the token volume"],
    ["/var/run/secrets/tokens/gke-oidc/token2", "another file"],
  ];
  for (const [path, why] of otherFile) {
    for (const [spelling, edit] of Object.entries(SPELLINGS)) {
      it(`RUNNER_GKE_TOKEN_PATH ${path} ${spelling} is RP-06 (${why})`, () => {
        const objects = withEnv("RUNNER_GKE_TOKEN_PATH", path, GKE);
        edit(objects, "RUNNER_GKE_TOKEN_PATH");
        expect(errorsOf(verdict(objects), "RP-06")).not.toEqual([]);
      });
    }
  }

  it("a relative token path is read from the container's workingDir", () => {
    const objects = withEnv("RUNNER_GKE_TOKEN_PATH", "gke-oidc/./token", GKE);
    runner(objects).workingDir = "/var/run/secrets/tokens";
    expect(verdict(objects)).toEqual([]);
    runner(objects).workingDir = "/app";
    expect(errorsOf(verdict(objects), "RP-06")).not.toEqual([]);
  });

  it("a relative token path without a workingDir is not judged (the image's WORKDIR is not in the manifest)", () => {
    expect(verdict(withEnv("RUNNER_GKE_TOKEN_PATH", "gke-oidc/token", GKE))).toEqual([]);
  });

  for (const mountPath of ["/var/run/secrets/tokens/gke-oidc/", "/var/run//secrets/tokens/gke-oidc", "/var/run/secrets/./tokens/gke-oidc"]) {
    it(`the token volume mounted at ${mountPath} is the same mount`, () => {
      const objects = example(GKE);
      mountOf(objects, "rootpilot-token").mountPath = mountPath;
      expect(verdict(objects)).toEqual([]);
    });

    it(`the token mounted at ${mountPath}: a wrong audience is still caught`, () => {
      const objects = example(GKE);
      mountOf(objects, "rootpilot-token").mountPath = mountPath;
      podOf(objects, KIND).volumes.find((v: { name: string }) => v.name === "rootpilot-token").projected.sources[0].serviceAccountToken.audience = "sts";
      expect(errorsOf(verdict(objects), "RP-06")).toEqual([
        "RP-06 error Deployment/rootpilot-runner spec.template.spec.volumes[2].projected.sources[0].serviceAccountToken.audience",
      ]);
    });
  }

  it("a projected token path written ./token is the file token", () => {
    const objects = example(GKE);
    podOf(objects, KIND).volumes.find((v: { name: string }) => v.name === "rootpilot-token").projected.sources[0].serviceAccountToken.path = "./token";
    expect(verdict(objects)).toEqual([]);
  });

  it("a token volume mounted elsewhere is RP-06 in any spelling of the mount", () => {
    const objects = example(GKE);
    mountOf(objects, "rootpilot-token").mountPath = "/var/run/secrets//tokens/gke/";
    expect(errorsOf(verdict(objects), "RP-06")).not.toEqual([]);
  });

  const sameStore = [
    "/var/lib/rootpilot//learned.db",
    "/var/lib/./rootpilot/learned.db",
    "//var/lib/rootpilot/learned.db",
    "/var/lib/x/../rootpilot/learned.db",
  ];
  for (const path of sameStore) {
    for (const [spelling, edit] of Object.entries(SPELLINGS)) {
      it(`RUNNER_LEARNED_STORE_PATH ${path} ${spelling} is on its emptyDir`, () => {
        const objects = withEnv("RUNNER_LEARNED_STORE_PATH", path, EKS);
        edit(objects, "RUNNER_LEARNED_STORE_PATH");
        expect(verdict(objects)).toEqual([]);
      });
    }
  }

  const offStore = [`${STORE}/`, "/var/lib/rootpilot/../learned.db", "/var/lib/rootpilot2/learned.db"];
  for (const path of offStore) {
    for (const [spelling, edit] of Object.entries(SPELLINGS)) {
      it(`RUNNER_LEARNED_STORE_PATH ${path} ${spelling} is RP-05`, () => {
        const objects = withEnv("RUNNER_LEARNED_STORE_PATH", path, EKS);
        edit(objects, "RUNNER_LEARNED_STORE_PATH");
        expect(errorsOf(verdict(objects), "RP-05")).not.toEqual([]);
      });
    }
  }

  for (const mountPath of ["/var/lib/rootpilot/", "/var//lib/rootpilot", "/var/lib/./rootpilot"]) {
    it(`the learned store's emptyDir mounted at ${mountPath} holds it`, () => {
      const objects = example(EKS);
      mountOf(objects, "learned-store").mountPath = mountPath;
      expect(verdict(objects)).toEqual([]);
    });
  }

  for (const home of ["/home//node", "/home/node/", "/home/./node"]) {
    it(`HOME ${home} is the emptyDir at /home/node (RP-01)`, () => {
      expect(verdict(withEnv("HOME", home, GKE))).toEqual([]);
    });
  }

  it("an empty or relative HOME is not judged: Node's os.homedir returns it, and the SDK reads it from the working directory", () => {
    for (const home of ["", "home/node"]) expect(verdict(withEnv("HOME", home, GKE))).toEqual([]);
  });

  it("a relative learned store path is read from the container's workingDir", () => {
    const objects = withEnv("RUNNER_LEARNED_STORE_PATH", "rootpilot/learned.db", EKS);
    expect(verdict(objects)).toEqual([]);
    runner(objects).workingDir = "/var/lib/";
    expect(verdict(objects)).toEqual([]);
    runner(objects).workingDir = "/srv";
    expect(errorsOf(verdict(objects), "RP-05")).toEqual(["RP-05 error Deployment/rootpilot-runner spec.template.spec.containers[0].env[5].value"]);
  });

  it("the home emptyDir mounted at /home/node/ is $HOME's", () => {
    const objects = example(GKE);
    mountOf(objects, "home").mountPath = "/home/node/";
    expect(verdict(objects)).toEqual([]);
  });

  it("HOME elsewhere leaves $HOME without its emptyDir in every spelling (RP-01)", () => {
    for (const home of ["/home/nodes", "/home/node/../root"]) {
      expect(of(verdict(withEnv("HOME", home, GKE)), "RP-01")).toEqual([
        "RP-01 warning Deployment/rootpilot-runner spec.template.spec.containers[0].volumeMounts",
      ]);
    }
  });

  it("~/.aws mounted in another spelling is still an ~/.aws mount (RP-07), at $HOME (RP-01 silent)", () => {
    for (const mountPath of ["/home/node/.aws/", "/home/node//.aws", "/home/node/.aws/."]) {
      const objects = example(EKS);
      const pod = podOf(objects, KIND);
      pod.volumes.push({ name: "aws", emptyDir: {} });
      runner(objects).volumeMounts.push({ name: "aws", mountPath });
      expect(verdict(objects)).toEqual(["RP-07 warning Deployment/rootpilot-runner spec.template.spec.containers[0].volumeMounts[3].mountPath"]);
    }
  });

  it("~/.aws mounted away from $HOME is RP-01 in any spelling", () => {
    const objects = example(EKS);
    podOf(objects, KIND).volumes.push({ name: "aws", emptyDir: {} });
    runner(objects).volumeMounts.push({ name: "aws", mountPath: "/root//.aws/" });
    expect(errorsOf(verdict(objects), "RP-01")).toEqual(["RP-01 error Deployment/rootpilot-runner spec.template.spec.containers[0].volumeMounts[3].mountPath"]);
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
