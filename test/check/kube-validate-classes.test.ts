// A StorageClass and an IngressClass as kube-apiserver validates them: an object it accepts and one it
// refuses for each check.
import { describe, it } from "vitest";
import { accepts, type Obj, refuses } from "../support/api-server.ts";

const storage = (extra: Obj = {}): Obj => ({
  apiVersion: "storage.k8s.io/v1",
  kind: "StorageClass",
  metadata: { name: "fast-ssd" },
  provisioner: "ebs.csi.aws.com",
  parameters: { type: "gp3" },
  ...extra,
});
const zone = (rq: Obj) => storage({ allowedTopologies: [{ matchLabelExpressions: [{ key: "topology.kubernetes.io/zone", values: ["a"], ...rq }] }] });
const ingressClass = (spec: Obj): Obj => ({ apiVersion: "networking.k8s.io/v1", kind: "IngressClass", metadata: { name: "nginx" }, spec });
const params = (p: Obj) =>
  ingressClass({ controller: "k8s.io/ingress-nginx", parameters: { apiGroup: "k8s.example.com", kind: "IngressParameters", name: "external", ...p } });

describe("a StorageClass (ValidateStorageClass)", () => {
  it("names a provisioner, any case, as a qualified name", () => {
    accepts(storage());
    accepts(storage({ provisioner: "EBS.CSI.AWS.COM" }));
    refuses(storage({ provisioner: "" }), "provisioner", "needs its provisioner");
    refuses(storage({ provisioner: "ebs csi" }), "provisioner", "is not a valid provisioner");
  });

  it("reclaims with Delete or Retain, and keeps parameters small with keys", () => {
    refuses(storage({ reclaimPolicy: "Recycle" }), "reclaimPolicy", "Delete or Retain, not Recycle");
    refuses(storage({ parameters: { "": "x" } }), "parameters", "key cannot be empty");
    refuses(storage({ parameters: { big: "x".repeat(257 * 1024) } }), "parameters", "at most 262144");
  });

  it("allows topologies with values, each key, value and term once", () => {
    refuses(zone({ values: [] }), "allowedTopologies.0.matchLabelExpressions.0.values", "at least one value");
    refuses(zone({ values: ["a", "a"] }), "allowedTopologies.0.matchLabelExpressions.0.values.1", "given twice");
    refuses(zone({ key: "bad key!" }), "allowedTopologies.0.matchLabelExpressions.0.key", "not a valid label key");
    const term = { matchLabelExpressions: [{ key: "zone", values: ["a", "b"] }] };
    refuses(
      storage({ allowedTopologies: [term, { matchLabelExpressions: [{ key: "zone", values: ["b", "a"] }] }] }),
      "allowedTopologies.1.matchLabelExpressions",
      "given twice",
    );
  });
});

describe("an IngressClass (validateIngressClassSpec)", () => {
  it("names its controller as a domain-prefixed path", () => {
    accepts(ingressClass({ controller: "k8s.io/ingress-nginx" }));
    for (const controller of ["ingress-nginx", "k8s.io/", "K8s.io/nginx", "k8s.io/ingress nginx"])
      refuses(ingressClass({ controller }), "spec.controller", "domain-prefixed path");
    refuses(ingressClass({ controller: `k8s.io/${"x".repeat(250)}` }), "spec.controller", "at most 250");
  });

  it("refers to parameters by kind and name, in a namespace exactly when the scope (Cluster by default) is Namespace", () => {
    accepts(params({}));
    accepts(params({ scope: "Namespace", namespace: "ingress" }));
    refuses(params({ scope: "Namespace" }), "spec.parameters.namespace", "names its namespace");
    refuses(params({ namespace: "default" }), "spec.parameters.namespace", "names no namespace");
    refuses(params({ scope: "Namespace", namespace: "Bad_NS" }), "spec.parameters.namespace", "not a valid namespace");
    refuses(params({ kind: "" }), "spec.parameters.kind", "needs its kind");
    refuses(params({ name: "a/b" }), "spec.parameters.name", "is not a valid name");
  });
});
