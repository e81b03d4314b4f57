// apiServerProblems on pod specs: containers, volumes and mounts, ports, resources, probes, environment and restart policies, each accepted and refused.
import { describe, it } from "vitest";
import { accepts, type Obj, refuses } from "../support/api-server.ts";
import { container, podSpec, withPod } from "./kube-validate-helpers.ts";

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
