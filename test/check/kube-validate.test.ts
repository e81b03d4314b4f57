// apiServerProblems: what kube-apiserver refuses beyond the OpenAPI schema. For each check, an
// object it accepts and one it refuses, with the path and a fragment of the message.
import { describe, expect, it } from "vitest";
import { apiServerProblems } from "../../src/check/kube-validate.ts";
import { accepts, NEWEST, type Obj, refuses } from "../support/api-server.ts";

const container = (extra: Obj = {}): Obj => ({ name: "app", image: "ghcr.io/example/app:1.0", ports: [{ name: "http", containerPort: 8080 }], ...extra });
const podSpec = (extra: Obj = {}): Obj => ({ containers: [container()], volumes: [{ name: "data", emptyDir: {} }], ...extra });
const deployment = (spec: Obj = {}, name = "compass-server"): Obj => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace: "compass", labels: { "app.kubernetes.io/name": "compass-server" } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { "app.kubernetes.io/name": "compass-server" } },
    template: { metadata: { labels: { "app.kubernetes.io/name": "compass-server" } }, spec: podSpec() },
    ...spec,
  },
});
const withPod = (spec: Obj): Obj => deployment({ template: { metadata: { labels: { "app.kubernetes.io/name": "compass-server" } }, spec } });
const service = (spec: Obj, name = "compass-server"): Obj => ({ apiVersion: "v1", kind: "Service", metadata: { name }, spec });
const policy = (spec: Obj): Obj => ({
  apiVersion: "networking.k8s.io/v1",
  kind: "NetworkPolicy",
  metadata: { name: "egress" },
  spec: { podSelector: {}, ...spec },
});
const ipBlock = (cidr: string, except: string[] = []) => policy({ egress: [{ to: [{ ipBlock: { cidr, except } }] }] });

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

describe("pod specs: containers and volumes", () => {
  it("container names are DNS-1123 labels, unique across containers, initContainers and ephemeralContainers", () => {
    accepts(withPod(podSpec({ initContainers: [{ name: "migrate", image: "x" }] })));
    refuses(withPod(podSpec({ containers: [container({ name: "App" })] })), "spec.template.spec.containers.0.name", `"App" is not a valid container name`);
    refuses(
      withPod(podSpec({ containers: [container(), container({ ports: [] })] })),
      "spec.template.spec.containers.1.name",
      `container name "app" is used twice: names must be unique across containers, initContainers and ephemeralContainers`,
    );
    refuses(withPod(podSpec({ initContainers: [{ name: "app", image: "x" }] })), "spec.template.spec.initContainers.0.name", "is used twice");
    refuses(
      withPod(podSpec({ ephemeralContainers: [{ name: "debug", image: "x" }] })),
      "spec.template.spec.ephemeralContainers",
      "cannot be set in a pod template",
    );
  });

  it("volume names are unique DNS-1123 labels, each volume of one type", () => {
    refuses(
      withPod(
        podSpec({
          volumes: [
            { name: "data", emptyDir: {} },
            { name: "data", emptyDir: {} },
          ],
        }),
      ),
      "spec.template.spec.volumes.1.name",
      `volume name "data" is used twice`,
    );
    refuses(withPod(podSpec({ volumes: [{ name: "Data", emptyDir: {} }] })), "spec.template.spec.volumes.0.name", `"Data" is not a valid volume name`);
    refuses(
      withPod(podSpec({ volumes: [{ name: "data", emptyDir: {}, configMap: { name: "c" } }] })),
      "spec.template.spec.volumes.0.configMap",
      "a volume has exactly one type",
    );
  });
});

describe("pod specs: volumes and mounts", () => {
  it("a volumeMount names a volume, and mountPaths are unique in a container", () => {
    const mounts = (volumeMounts: Obj[]) => withPod(podSpec({ containers: [container({ volumeMounts })] }));
    accepts(mounts([{ name: "data", mountPath: "/data" }]));
    refuses(
      mounts([{ name: "cache", mountPath: "/cache" }]),
      "spec.template.spec.containers.0.volumeMounts.0.name",
      `volume mount names "cache", which is not a volume of this pod`,
    );
    refuses(
      mounts([
        { name: "data", mountPath: "/data" },
        { name: "data", mountPath: "/data", subPath: "a" },
      ]),
      "spec.template.spec.containers.0.volumeMounts.1.mountPath",
      `mountPath "/data" is mounted twice`,
    );
    refuses(
      mounts([{ name: "data", mountPath: "/x", subPath: "../etc" }]),
      "spec.template.spec.containers.0.volumeMounts.0.subPath",
      "must be a relative path inside the volume, without a '..' element",
    );
  });

  it("a StatefulSet's volumeClaimTemplates are volumes its containers can mount", () => {
    const sts: Obj = {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "db" },
      spec: {
        selector: { matchLabels: { app: "db" } },
        serviceName: "db",
        template: {
          metadata: { labels: { app: "db" } },
          spec: { containers: [container({ volumeMounts: [{ name: "pgdata", mountPath: "/var/lib/postgresql" }] })] },
        },
        volumeClaimTemplates: [{ metadata: { name: "pgdata" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
      },
    };
    accepts(sts);
    sts.spec.volumeClaimTemplates[0].metadata.name = "pg_data";
    refuses(sts, "spec.volumeClaimTemplates.0.metadata.name", `"pg_data" is not a valid volume name (a volumeClaimTemplate names a volume)`);
  });
});

describe("pod specs: ports", () => {
  it("containerPort is 1-65535, hostPort 0-65535", () => {
    const ports = (p: Obj[]) => withPod(podSpec({ containers: [container({ ports: p })] }));
    accepts(
      ports([
        { containerPort: 8080, hostPort: 0 },
        { containerPort: 65535, hostPort: 65535, protocol: "UDP" },
      ]),
    );
    refuses(
      ports([{ containerPort: 0 }]),
      "spec.template.spec.containers.0.ports.0.containerPort",
      "containerPort 0 is out of range: Kubernetes accepts 1 to 65535",
    );
    refuses(ports([{ containerPort: 70000 }]), "spec.template.spec.containers.0.ports.0.containerPort", "containerPort 70000 is out of range");
    refuses(ports([{ containerPort: 80, hostPort: 70000 }]), "spec.template.spec.containers.0.ports.0.hostPort", "hostPort 70000 is out of range");
  });

  it("a port name is an IANA service name, unique within its container", () => {
    const ports = (p: Obj[]) => withPod(podSpec({ containers: [container({ ports: p })] }));
    accepts(withPod(podSpec({ containers: [container(), container({ name: "sidecar" })] })));
    refuses(
      ports([{ name: "HTTP_1", containerPort: 80 }]),
      "spec.template.spec.containers.0.ports.0.name",
      `"HTTP_1" is not a valid port name: an IANA service name`,
    );
    refuses(
      ports([
        { name: "http", containerPort: 80 },
        { name: "http", containerPort: 81 },
      ]),
      "spec.template.spec.containers.0.ports.1.name",
      `port name "http" is used twice in this container`,
    );
  });

  it("hostPorts are unique across a pod's containers, and equal containerPort with hostNetwork", () => {
    const hostPorts = podSpec({
      containers: [container({ ports: [{ containerPort: 80, hostPort: 8080 }] }), container({ name: "b", ports: [{ containerPort: 81, hostPort: 8080 }] })],
    });
    refuses(withPod(hostPorts), "spec.template.spec.containers.1.ports.0.hostPort", "hostPort 8080/TCP is used twice in this pod");
    refuses(
      withPod(podSpec({ hostNetwork: true, containers: [container({ ports: [{ containerPort: 80, hostPort: 81 }] })] })),
      "spec.template.spec.containers.0.ports.0.hostPort",
      "must equal containerPort 80",
    );
  });
});

describe("pod specs: resources, probes and environment", () => {
  it("requests are at most limits, compared exactly after rounding up to a thousandth; extended resources need them equal", () => {
    const resources = (r: Obj) => withPod(podSpec({ containers: [container({ resources: r })] }));
    accepts(resources({ requests: { cpu: "500m", memory: "1Gi" }, limits: { cpu: "1", memory: "1024Mi" } }));
    accepts(resources({ requests: { cpu: "1.0002m" }, limits: { cpu: "1.0001m" } }));
    refuses(
      resources({ requests: { memory: "2Gi" }, limits: { memory: "2047Mi" } }),
      "spec.template.spec.containers.0.resources.requests",
      "the memory request is more than its limit",
    );
    refuses(
      resources({ requests: { "example.com/gpu": "1" }, limits: { "example.com/gpu": "2" } }),
      "spec.template.spec.containers.0.resources.requests",
      "must equal its limit",
    );
    refuses(resources({ limits: { gpu: "1" } }), "spec.template.spec.containers.0.resources.limits.gpu", "is not a standard container resource");
    refuses(resources({ requests: { cpu: "-1" } }), "spec.template.spec.containers.0.resources.requests.cpu", "is negative");
    accepts(resources({ requests: { cpu: "1", "hugepages-2Mi": "4Mi" }, limits: { "hugepages-2Mi": "4Mi" } }));
    refuses(
      resources({ requests: { cpu: "1", "hugepages-2Mi": "3Mi" }, limits: { "hugepages-2Mi": "3Mi" } }),
      "spec.template.spec.containers.0.resources.limits.hugepages-2Mi",
      "not a whole number of 2Mi pages",
    );
  });

  it("a probe has exactly one action; liveness and startup succeed once", () => {
    const probe = (livenessProbe: Obj) => withPod(podSpec({ containers: [container({ livenessProbe })] }));
    accepts(probe({ httpGet: { path: "/healthz", port: "http" }, successThreshold: 1 }));
    refuses(
      probe({ httpGet: { port: 8080 }, tcpSocket: { port: 8080 } }),
      "spec.template.spec.containers.0.livenessProbe.tcpSocket",
      "sets httpGet and tcpSocket",
    );
    refuses(probe({ periodSeconds: 10 }), "spec.template.spec.containers.0.livenessProbe", "needs one action: exec, httpGet, tcpSocket, grpc");
    refuses(probe({ exec: { command: ["true"] }, successThreshold: 3 }), "spec.template.spec.containers.0.livenessProbe.successThreshold", "must be 1, not 3");
    refuses(probe({ httpGet: { port: "HTTP_1" } }), "spec.template.spec.containers.0.livenessProbe.httpGet.port", `"HTTP_1" is not a valid port`);
  });

  it("an init container takes probes only as a sidecar (restartPolicy Always, honoured from 1.29)", () => {
    const init = (c: Obj) => withPod(podSpec({ initContainers: [{ name: "proxy", image: "x", readinessProbe: { tcpSocket: { port: 15000 } }, ...c }] }));
    accepts(init({ restartPolicy: "Always" }), "1.29");
    refuses(init({}), "spec.template.spec.initContainers.0.readinessProbe", "unless it is a sidecar");
    refuses(init({ restartPolicy: "Always" }), "spec.template.spec.initContainers.0.readinessProbe", "unless it is a sidecar", "1.28");
  });

  it("environment variable names: C-like up to 1.31, any printable ASCII but '=' from 1.32", () => {
    const env = (name: string) => withPod(podSpec({ containers: [container({ env: [{ name, value: "1" }] })] }));
    accepts(env("LOG LEVEL"), "1.32");
    refuses(env("LOG LEVEL"), "spec.template.spec.containers.0.env.0.name", `"LOG LEVEL" is not a valid environment variable name`, "1.31");
    refuses(env("A=B"), "spec.template.spec.containers.0.env.0.name", "printable ASCII characters other than '='");
  });
});

describe("pod specs: restart policies", () => {
  it("restartPolicy by workload: Always for Deployment, DaemonSet, ReplicaSet, StatefulSet; OnFailure or Never for a Job", () => {
    refuses(
      withPod(podSpec({ restartPolicy: "Never" })),
      "spec.template.spec.restartPolicy",
      `a Deployment's pods must have restartPolicy Always, not "Never"`,
    );
    const job = (spec: Obj): Obj => ({ apiVersion: "batch/v1", kind: "Job", metadata: { name: "migrate" }, spec: { template: { spec } } });
    accepts(job(podSpec({ restartPolicy: "OnFailure" })));
    refuses(job(podSpec()), "spec.template.spec.restartPolicy", "a Job's pods need restartPolicy OnFailure or Never (unset means Always");
  });

  it("a Pod is checked as a Pod: ephemeral containers cannot be set on create", () => {
    const pod: Obj = { apiVersion: "v1", kind: "Pod", metadata: { name: "debug" }, spec: podSpec() };
    accepts(pod);
    refuses({ ...pod, spec: podSpec({ ephemeralContainers: [{ name: "dbg", image: "busybox" }] }) }, "spec.ephemeralContainers", "cannot be set on create");
  });
});

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
