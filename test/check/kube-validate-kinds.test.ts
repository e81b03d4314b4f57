// apiServerProblems by kind: apps workloads, Services, NetworkPolicies, RBAC, PodDisruptionBudgets, PriorityClasses, ConfigMaps and Secrets, each accepted and refused.
import { describe, it } from "vitest";
import { accepts, type Obj, refuses } from "../support/api-server.ts";
import { deployment, ipBlock, policy, service } from "./kube-validate-helpers.ts";

describe("apps workloads", () => {
  it("the selector is required to be non-empty and to select the template's labels", () => {
    refuses(deployment({ selector: {} }), "spec.selector", "a Deployment needs a selector with matchLabels or matchExpressions");
    refuses(
      deployment({ selector: { matchLabels: { "app.kubernetes.io/name": "other" } } }),
      "spec.template.metadata.labels",
      "spec.selector does not select the template's labels",
    );
    accepts(deployment({ selector: { matchExpressions: [{ key: "app.kubernetes.io/name", operator: "In", values: ["compass-server", "x"] }] } }));
    refuses(
      deployment({ selector: { matchExpressions: [{ key: "tier", operator: "Exists", values: ["x"] }] } }),
      "spec.selector.matchExpressions.0.values",
      "operator Exists takes no values",
    );
  });

  it("a Deployment's rollout can progress: maxUnavailable and maxSurge not both 0, progressDeadlineSeconds over minReadySeconds", () => {
    accepts(deployment({ strategy: { rollingUpdate: { maxSurge: 0 } } }));
    refuses(
      deployment({ strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: "0%" } } }),
      "spec.strategy.rollingUpdate.maxUnavailable",
      "cannot both be 0",
    );
    refuses(
      deployment({ minReadySeconds: 600 }),
      "spec.progressDeadlineSeconds",
      "progressDeadlineSeconds (600, the default) must be greater than minReadySeconds (600)",
    );
  });

  it("a DaemonSet sets maxSurge only with maxUnavailable 0 (it defaults to 1)", () => {
    const ds: Obj = { ...deployment(), kind: "DaemonSet", spec: { ...deployment().spec, replicas: undefined } };
    delete ds.spec.replicas;
    accepts({ ...ds, spec: { ...ds.spec, updateStrategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } } });
    refuses(
      { ...ds, spec: { ...ds.spec, updateStrategy: { rollingUpdate: { maxSurge: 1 } } } },
      "spec.updateStrategy.rollingUpdate.maxSurge",
      "(it defaults to 1)",
    );
  });
});

describe("Services", () => {
  it("ports are 1-65535, targetPort a number or an IANA name, names required beyond one port and unique", () => {
    accepts(
      service({
        ports: [
          { name: "http", port: 80, targetPort: "http" },
          { name: "metrics", port: 9090, targetPort: 9090 },
        ],
      }),
    );
    refuses(service({ ports: [{ port: 0 }] }), "spec.ports.0.port", "port 0 is out of range");
    refuses(service({ ports: [{ port: 80, targetPort: "HTTP_1" }] }), "spec.ports.0.targetPort", `"HTTP_1" is not a valid targetPort`);
    refuses(service({ ports: [{ port: 80 }, { port: 443 }] }), "spec.ports.0.name", "a Service with more than one port needs a name on each");
    refuses(
      service({
        ports: [
          { name: "web", port: 80 },
          { name: "web", port: 443 },
        ],
      }),
      "spec.ports.1.name",
      `port name "web" is used twice`,
    );
  });

  it("clusterIP is an IP or None; externalIPs are not loopback or link-local; strict from 1.36", () => {
    accepts(service({ clusterIP: "None" }));
    accepts(service({ clusterIP: "10.96.0.10", ports: [{ port: 53 }] }));
    refuses(service({ clusterIP: "10.96.0.300", ports: [{ port: 53 }] }), "spec.clusterIP", `"10.96.0.300" is not a valid cluster IP`);
    accepts(service({ clusterIP: "010.96.0.10", ports: [{ port: 53 }] }), "1.35");
    refuses(service({ clusterIP: "010.96.0.10", ports: [{ port: 53 }] }), "spec.clusterIP", "without leading zeros", "1.36");
    refuses(service({ externalIPs: ["127.0.0.1"], ports: [{ port: 80 }] }), "spec.externalIPs.0", "may not be in the loopback range");
  });

  it("nodePort only beyond ClusterIP, whatever its number (the range is the cluster's)", () => {
    accepts(service({ type: "NodePort", ports: [{ port: 80, nodePort: 80 }] }));
    refuses(service({ ports: [{ port: 80, nodePort: 30080 }] }), "spec.ports.0.nodePort", "a ClusterIP Service cannot set nodePort");
  });

  it("loadBalancerSourceRanges are CIDRs of a LoadBalancer", () => {
    accepts(service({ type: "LoadBalancer", ports: [{ port: 443 }], loadBalancerSourceRanges: [" 203.0.113.0/24 "] }));
    refuses(
      service({ type: "LoadBalancer", ports: [{ port: 443 }], loadBalancerSourceRanges: ["203.0.113.0"] }),
      "spec.loadBalancerSourceRanges.0",
      "is not a valid CIDR",
    );
  });
});

describe("NetworkPolicies", () => {
  it("ipBlock.cidr is a CIDR, each except a CIDR strictly inside it", () => {
    accepts(ipBlock("0.0.0.0/0", ["169.254.169.254/32", "10.0.0.0/8"]));
    refuses(ipBlock("10.0.0.0/33"), "spec.egress.0.to.0.ipBlock.cidr", `"10.0.0.0/33" is not a valid CIDR`);
    refuses(ipBlock("10.0.0.0/8", ["192.168.0.0/16"]), "spec.egress.0.to.0.ipBlock.except.0", "must be a range strictly inside cidr");
    refuses(ipBlock("10.0.0.0/8", ["10.0.0.0/8"]), "spec.egress.0.to.0.ipBlock.except.0", "strictly inside");
  });

  it("host bits in a CIDR are refused from 1.36 (StrictIPCIDRValidation)", () => {
    accepts(ipBlock("10.0.0.1/8"), "1.35");
    refuses(ipBlock("10.0.0.1/8"), "spec.egress.0.to.0.ipBlock.cidr", "without host bits set", "1.36");
  });

  it("a port range starts at a numeric port and does not go below it", () => {
    const ports = (p: Obj) => policy({ ingress: [{ ports: [p] }] });
    accepts(ports({ port: 32000, endPort: 32768 }));
    refuses(ports({ port: 32768, endPort: 32000 }), "spec.ingress.0.ports.0.endPort", "endPort 32000 must not be below port 32768");
    refuses(ports({ port: "http", endPort: 90 }), "spec.ingress.0.ports.0.endPort", "endPort needs a numeric port");
  });
});

describe("RBAC, PodDisruptionBudgets, PriorityClasses, ConfigMaps and Secrets", () => {
  it("a Role's rules cannot name non-resource URLs; a resource rule names groups and resources", () => {
    const role = (rules: Obj[]): Obj => ({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "reader" }, rules });
    accepts(role([{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }]));
    refuses(role([{ nonResourceURLs: ["/metrics"], verbs: ["get"] }]), "rules.0.nonResourceURLs", "only a ClusterRole's can");
    refuses(role([{ resources: ["pods"], verbs: ["get"] }]), "rules.0.apiGroups", "a resource rule needs at least one api group");
  });

  it("a binding refers to an RBAC role; a ClusterRoleBinding's ServiceAccount subject has a namespace", () => {
    const binding = (roleRef: Obj, subjects: Obj[]): Obj => ({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "read" },
      roleRef,
      subjects,
    });
    accepts(
      binding({ kind: "ClusterRole", name: "view" }, [
        { kind: "ServiceAccount", name: "runner", namespace: "compass" },
        { kind: "User", name: "jane" },
      ]),
    );
    refuses(binding({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "view" }, []), "roleRef.kind", `refers to ClusterRole, not "Role"`);
    refuses(binding({ kind: "ClusterRole", name: "view" }, [{ kind: "ServiceAccount", name: "runner" }]), "subjects.0.namespace", "needs its namespace");
  });

  it("a PodDisruptionBudget sets minAvailable or maxUnavailable", () => {
    const pdb = (spec: Obj): Obj => ({
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: { name: "web" },
      spec: { selector: { matchLabels: { app: "web" } }, ...spec },
    });
    accepts(pdb({ maxUnavailable: "50%" }));
    refuses(pdb({ minAvailable: 1, maxUnavailable: 1 }), "spec", "cannot both be set");
    refuses(pdb({ minAvailable: "150%" }), "spec.minAvailable", "more than 100%");
  });

  it("a user PriorityClass is at most one billion; system- names are reserved", () => {
    const pc = (name: string, value: number): Obj => ({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name }, value });
    accepts(pc("compass-high", 1000000000));
    refuses(pc("compass-high", 2000000000), "value", "reserved for system classes");
    refuses(pc("system-compass", 1000), "metadata.name", "reserved");
  });

  it("ConfigMap and Secret keys; a TLS Secret has its two keys (stringData counts)", () => {
    accepts({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "conf" }, data: { "app.yaml": "a: 1" } });
    refuses({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "conf" }, data: { "conf/app.yaml": "a: 1" } }, "data.conf/app.yaml", "is not a valid key");
    const tls = (stringData: Obj): Obj => ({ apiVersion: "v1", kind: "Secret", metadata: { name: "tls" }, type: "kubernetes.io/tls", stringData });
    accepts(tls({ "tls.crt": "c", "tls.key": "k" }));
    refuses(tls({ "tls.crt": "c" }), "data.tls.key", `needs the key "tls.key"`);
  });
});
