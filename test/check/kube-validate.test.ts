// apiServerProblems: what kube-apiserver refuses beyond the OpenAPI schema. For each check, an
// object it accepts and one it refuses, with the path and a fragment of the message.
import { describe, expect, it } from "vitest";
import { apiServerProblems } from "../../src/check/kube-validate.ts";
import { accepts, NEWEST, type Obj, refuses } from "../support/api-server.ts";
import { deployment, ipBlock, podSpec, service } from "./kube-validate-helpers.ts";

describe("metadata.name by kind", () => {
  it("a Deployment's name is a DNS-1123 subdomain", () => {
    accepts(deployment({}, "compass-server.v2"));
    refuses(
      deployment({}, "Server_server-499"),
      "metadata.name",
      `"Server_server-499" is not a valid name for a Deployment: a lowercase RFC 1123 subdomain (lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters)`,
    );
  });

  it("a Namespace's name is a DNS-1123 label", () => {
    accepts({ apiVersion: "v1", kind: "Namespace", metadata: { name: "compass-system" } });
    refuses({ apiVersion: "v1", kind: "Namespace", metadata: { name: "compass.system" } }, "metadata.name", "a lowercase RFC 1123 label");
  });

  it("a Service's name is a DNS-1035 label up to 1.35, a DNS-1123 label from 1.36 (RelaxedServiceNameValidation)", () => {
    const web = service({ ports: [{ port: 80 }] }, "9web");
    refuses(web, "metadata.name", `"9web" is not a valid name for a Service: a DNS-1035 label`, "1.35");
    accepts(web, "1.36");
    refuses(service({ ports: [{ port: 80 }] }, "web.example"), "metadata.name", "a lowercase RFC 1123 label", "1.36");
  });

  it("RBAC names are path segments", () => {
    const role = (name: string): Obj => ({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name }, rules: [] });
    accepts(role("system:aggregate-to-Compass"));
    refuses(role("a/b"), "metadata.name", `"a/b" is not a valid name for a ClusterRole: a name other than '.' and '..', without '/' or '%'`);
    refuses(role(".."), "metadata.name", "a ClusterRole");
  });

  it("a StatefulSet's name is a DNS-1123 subdomain up to 1.26, a label from 1.27", () => {
    const sts = (name: string): Obj => ({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name },
      spec: { selector: { matchLabels: { app: "db" } }, template: { metadata: { labels: { app: "db" } }, spec: podSpec() } },
    });
    accepts(sts("db.v1"), "1.26");
    refuses(sts("db.v1"), "metadata.name", "a lowercase RFC 1123 label", "1.27");
  });

  it("a CustomResourceDefinition is named <plural>.<group>", () => {
    const crd = (name: string): Obj => ({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name },
      spec: {
        group: "compass.example.com",
        names: { plural: "runners", kind: "Runner" },
        scope: "Namespaced",
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } }],
      },
    });
    accepts(crd("runners.compass.example.com"));
    refuses(crd("runner.compass.example.com"), "metadata.name", `it must be spec.names.plural + "." + spec.group ("runners.compass.example.com")`);
  });

  it("needs a name or a generateName, whose trailing dash is allowed", () => {
    const job = deployment();
    delete job.metadata.name;
    refuses(job, "metadata.name", "a Deployment needs metadata.name (or metadata.generateName)");
    accepts({ ...job, metadata: { ...job.metadata, generateName: "compass-server-" } });
    refuses({ ...job, metadata: { ...job.metadata, generateName: "Compass-" } }, "metadata.generateName", "is not a valid generateName for a Deployment");
  });

  it("a CronJob's name is at most 52 characters", () => {
    const cron = (name: string): Obj => ({
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name },
      spec: { schedule: "0 * * * *", jobTemplate: { spec: { template: { spec: podSpec({ restartPolicy: "OnFailure" }) } } } },
    });
    accepts(cron("x".repeat(52)));
    refuses(cron("x".repeat(53)), "metadata.name", "a CronJob's name is at most 52 characters (its Jobs add 11), not 53");
  });

  it("a Job's name is a label value (its pods' job-name label), unless it selects its pods itself", () => {
    const job = (name: string, spec: Obj = {}): Obj => ({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name },
      spec: { template: { spec: podSpec({ restartPolicy: "Never" }) }, ...spec },
    });
    accepts(job("n".repeat(63)));
    refuses(job("n".repeat(64)), "metadata.name", "a Job's name becomes its pods' job-name label, so it must be a valid label value");
    accepts(
      job("n".repeat(64), {
        manualSelector: true,
        selector: { matchLabels: { app: "m" } },
        template: { metadata: { labels: { app: "m" } }, spec: podSpec({ restartPolicy: "Never" }) },
      }),
    );
  });
});

describe("namespace, labels, annotations", () => {
  it("a namespaced object's namespace is a DNS-1123 label; a cluster-scoped one's is ignored", () => {
    refuses({ ...deployment(), metadata: { name: "web", namespace: "Compass" } }, "metadata.namespace", `"Compass" is not a valid namespace`);
    accepts({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "reader", namespace: "Compass" }, rules: [] });
  });

  it("label keys are qualified names and values label values", () => {
    const labelled = (labels: Obj): Obj => ({ ...deployment(), metadata: { name: "web", labels } });
    accepts(labelled({ "app.kubernetes.io/version": "v1.2.3_rc-1", tier: "" }));
    refuses(labelled({ "app.kubernetes.io/version/x": "1" }), "metadata.labels.app.kubernetes.io/version/x", "is not a valid label key: a qualified name");
    refuses(labelled({ version: "1.2.3+build" }), "metadata.labels.version", `"1.2.3+build" is not a valid label value`);
  });

  it("annotation keys are qualified names in any case; the annotations take at most 256 KiB", () => {
    const annotated = (annotations: Obj): Obj => ({ ...deployment(), metadata: { name: "web", annotations } });
    accepts(annotated({ "Example.COM/Checksum": "x" }));
    accepts(annotated({ big: "x".repeat(256 * 1024 - 3) }));
    refuses(annotated({ "a/b/c": "x" }), "metadata.annotations.a/b/c", "is not a valid annotation key");
    refuses(
      annotated({ big: "x".repeat(300 * 1024) }),
      "metadata.annotations",
      "annotations take 307203 bytes (keys and values): Kubernetes accepts at most 262144 bytes",
    );
  });

  it("checks the pod template's labels and annotations too", () => {
    const d = deployment();
    d.spec.template.metadata.annotations = { "checksum/config": "abc", "bad key": "x" };
    refuses(d, "spec.template.metadata.annotations.bad key", "is not a valid annotation key");
  });
});

describe("scope", () => {
  it("judges no custom resource and no kind it was not given the rules of", () => {
    accepts({ apiVersion: "compass.example.com/v1", kind: "Runner", metadata: { name: "Bad_Name" } });
    accepts({ apiVersion: "events.k8s.io/v1", kind: "Event", metadata: { name: "Bad_Name" } });
  });

  it("skips values of the wrong type, which the schema walk reports", () => {
    const odd: Obj = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: 42, labels: ["x"], annotations: "x" },
      spec: { selector: "x", template: { metadata: { labels: 3 }, spec: { containers: "x", volumes: [null, 1] } } },
    };
    expect(() => apiServerProblems(odd, NEWEST)).not.toThrow();
    expect(apiServerProblems(odd, NEWEST)).toEqual([]);
  });

  it("judges an unknown version by the looser rule of each version-dependent check", () => {
    accepts(service({ ports: [{ port: 80 }] }, "9web"), "2.0");
    accepts(ipBlock("10.0.0.1/8"), "latest");
  });

  it("reads a long name in linear time", () => {
    const start = performance.now();
    const problems = apiServerProblems(deployment({}, `${"a-".repeat(400_000)}_`), NEWEST);
    expect(problems.map((p) => p.path.join("."))).toContain("metadata.name");
    expect(problems[0].message.length).toBeLessThan(600);
    expect(performance.now() - start).toBeLessThan(2000);
  });
});
