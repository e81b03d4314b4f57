// The catalog's classes for one kind's own validation each: an autoscaler's bounds, a claim's spec, a
// pod's affinity, tolerations and security context, an Ingress's rules, a CronJob's schedule.
import { get, podSpecs } from "./mutation-paths.ts";
import type { MutationClass } from "./mutations.ts";

type Obj = Record<string, unknown>;

export const KIND_CLASSES: readonly MutationClass[] = [
  {
    name: "webhook configuration",
    mutate: (o) => {
      if (o.kind !== "ValidatingWebhookConfiguration") return [];
      const hook = ["webhooks", 0];
      const rule = (r: Obj) => ({
        field: [...hook, "rules"],
        value: [{ operations: ["CREATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"], ...r }],
      });
      const client = (c: Obj) => ({ field: [...hook, "clientConfig"], value: c });
      const service = (s: Obj) => client({ service: { name: "policy", namespace: "policy-system", ...s } });
      return [
        { field: [...hook, "name"], value: "validate" },
        { field: [...hook, "name"], value: "Validate.Policy.example.com" },
        { field: ["webhooks", 1], value: { ...(get(o, hook) as Obj) } },
        { field: [...hook, "sideEffects"], value: undefined },
        { field: [...hook, "sideEffects"], value: "Some" },
        { field: [...hook, "timeoutSeconds"], value: 31 },
        { field: [...hook, "admissionReviewVersions"], value: [] },
        { field: [...hook, "admissionReviewVersions"], value: ["v2"] },
        { field: [...hook, "admissionReviewVersions"], value: ["v1", "v1"] },
        { field: [...hook, "namespaceSelector"], value: { matchExpressions: [{ key: "team", operator: "In", values: [] }] } },
        client({}),
        client({ url: "https://policy.example.com/validate", service: { name: "policy", namespace: "policy-system" } }),
        client({ url: "http://policy.example.com/validate" }),
        client({ url: "https://user@policy.example.com/validate" }),
        client({ url: "https://policy.example.com/validate?x=1" }),
        client({ url: "https://policy.example.com/validate#frag" }),
        client({ url: "https://policy.example.com/validate" }),
        service({ name: "" }),
        service({ port: 0 }),
        service({ path: "validate" }),
        service({ path: "/Validate" }),
        service({ path: "/a//b" }),
        rule({ operations: [] }),
        rule({ operations: ["*", "CREATE"] }),
        rule({ apiGroups: ["*", "apps"] }),
        rule({ apiVersions: [""] }),
        rule({ resources: [] }),
        rule({ resources: ["*/*", "pods"] }),
        rule({ resources: ["*", "pods"] }),
        rule({ resources: ["pods/*", "pods/log"] }),
        rule({ resources: ["*", "pods/log"] }),
      ];
    },
  },
  {
    name: "storage and ingress classes",
    mutate: (o) => {
      const topology = (rq: Obj) => ({
        field: ["allowedTopologies"],
        value: [{ matchLabelExpressions: [{ key: "topology.kubernetes.io/zone", values: ["a"], ...rq }] }],
      });
      const parameters = (p: Obj) => ({
        field: ["spec", "parameters"],
        value: { apiGroup: "k8s.example.com", kind: "IngressParameters", name: "external", ...p },
      });
      if (o.kind === "StorageClass")
        return [
          { field: ["provisioner"], value: "" },
          { field: ["provisioner"], value: "ebs csi" },
          { field: ["provisioner"], value: "EBS.CSI.AWS.COM" },
          { field: ["reclaimPolicy"], value: "Recycle" },
          { field: ["parameters"], value: { "": "x" } },
          { field: ["parameters"], value: { big: "x".repeat(257 * 1024) } },
          topology({ values: [] }),
          topology({ values: ["a", "a"] }),
          topology({ key: "bad key!" }),
          { field: ["allowedTopologies"], value: [0, 1].map(() => ({ matchLabelExpressions: [{ key: "zone", values: ["a"] }] })) },
        ];
      if (o.kind === "IngressClass")
        return [
          { field: ["spec", "controller"], value: "ingress-nginx" },
          { field: ["spec", "controller"], value: "k8s.io/" },
          { field: ["spec", "controller"], value: "K8s.io/nginx" },
          { field: ["spec", "controller"], value: "k8s.io/ingress nginx" },
          { field: ["spec", "controller"], value: `k8s.io/${"x".repeat(250)}` },
          parameters({ scope: undefined }),
          parameters({ scope: "Namespace" }),
          parameters({ scope: "Namespace", namespace: "Bad_NS" }),
          parameters({ scope: "Cluster", namespace: "default" }),
          parameters({ kind: "" }),
          parameters({ name: "a/b" }),
        ];
      return [];
    },
  },
  {
    name: "container image",
    mutate: (_o, all) =>
      podSpecs(all).flatMap((s) => [
        { field: [...s.path, "containers", 0, "image"], value: "" },
        { field: [...s.path, "containers", 0, "image"], value: undefined },
        { field: [...s.path, "containers", 0, "image"], value: " nginx:1.27" },
        { field: [...s.path, "containers", 0, "image"], value: "nginx:1.27\t" },
      ]),
  },
  {
    name: "topology spread",
    mutate: (_o, all, pick) => {
      const spec = pick(podSpecs(all));
      if (!spec) return [];
      const spread = (extra: Obj) => ({
        maxSkew: 1,
        topologyKey: "topology.kubernetes.io/zone",
        whenUnsatisfiable: "DoNotSchedule",
        labelSelector: { matchLabels: { app: "web" } },
        ...extra,
      });
      return [
        [spread({ maxSkew: 0 })],
        [spread({ topologyKey: "" })],
        [spread({}), spread({ maxSkew: 2 })],
        [spread({}), spread({ whenUnsatisfiable: "ScheduleAnyway" })],
        [spread({ minDomains: 0 })],
        [spread({ minDomains: 2, whenUnsatisfiable: "ScheduleAnyway" })],
        [spread({ minDomains: 3 })],
        [spread({ labelSelector: { matchExpressions: [{ key: "app", operator: "Exists", values: ["web"] }] } })],
      ].map((value) => ({ field: [...spec.path, "topologySpreadConstraints"], value }));
    },
  },
  {
    name: "volume sources",
    mutate: (o, all, pick) => {
      const spec = pick(podSpecs(all));
      if (!spec) return [];
      // The first volume replaced, so that its mounts still name it.
      const volumes = (get(o, [...spec.path, "volumes"]) as Obj[] | undefined) ?? [];
      const name = String(volumes[0]?.name ?? "scratch");
      const volume = (source: Obj) => ({ field: [...spec.path, "volumes"], value: [{ name, ...source }, ...volumes.slice(1)] });
      const projected = (sources: unknown[], extra: Obj = {}) => volume({ projected: { sources, ...extra } });
      const token = (extra: Obj) => ({ serviceAccountToken: { audience: "vault", path: "token", ...extra } });
      return [
        volume({ secret: { secretName: "" } }),
        volume({ secret: { secretName: "tls", defaultMode: 512 } }),
        volume({ secret: { secretName: "tls", items: [{ key: "tls.crt", path: "../escape" }] } }),
        volume({ secret: { secretName: "tls", items: [{ key: "tls.crt", path: "/abs" }] } }),
        volume({ secret: { secretName: "tls", items: [{ key: "tls.crt", path: "..cert" }] } }),
        volume({ configMap: {} }),
        volume({ configMap: { name: "settings", items: [{ key: "", path: "a" }] } }),
        volume({ configMap: { name: "settings", items: [{ key: "a", path: "a", mode: -1 }] } }),
        volume({ hostPath: { path: "" } }),
        volume({ hostPath: { path: "/var/../etc" } }),
        volume({ persistentVolumeClaim: { claimName: "" } }),
        volume({ downwardAPI: { items: [{ path: "labels" }] } }),
        volume({
          downwardAPI: { items: [{ path: "x", fieldRef: { fieldPath: "metadata.name" }, resourceFieldRef: { resource: "limits.cpu", containerName: "web" } }] },
        }),
        projected([token({ expirationSeconds: 599 })]),
        projected([token({ expirationSeconds: 4294967297 })]),
        projected([token({ path: "/abs/token" })]),
        projected([token({ path: "" })]),
        projected([token({}), token({ path: "other" })]),
        projected([{ ...token({}), configMap: { name: "settings" } }]),
        projected([{ configMap: { name: "a", items: [{ key: "k", path: "same" }] } }, { secret: { name: "b", items: [{ key: "k", path: "same" }] } }]),
        projected([{ secret: { items: [{ key: "k", path: "k" }] } }]),
        projected([token({})], { defaultMode: 1000 }),
      ];
    },
  },
  {
    name: "autoscaler bounds",
    mutate: (o) => {
      if (o.kind !== "HorizontalPodAutoscaler") return [];
      const metric = ["spec", "metrics", 0];
      const policy = ["spec", "behavior", "scaleDown", "policies", 0];
      return [
        { field: ["spec", "minReplicas"], value: 0 },
        { field: ["spec", "maxReplicas"], value: 1 },
        { field: ["spec", "scaleTargetRef", "apiVersion"], value: "v1" },
        { field: ["spec", "scaleTargetRef", "apiVersion"], value: "apps/v1/x" },
        { field: ["spec", "scaleTargetRef", "name"], value: "web/x" },
        { field: [...metric, "resource", "target", "averageUtilization"], value: 0 },
        { field: [...metric, "resource", "target", "averageValue"], value: "500m" },
        { field: [...metric, "pods"], value: { metric: { name: "rps" }, target: { type: "AverageValue", averageValue: "1" } } },
        { field: [...metric, "type"], value: "Pods" },
        { field: ["spec", "behavior", "scaleDown", "policies"], value: [] },
        { field: [...policy, "periodSeconds"], value: 1801 },
        { field: [...policy, "value"], value: 0 },
        { field: ["spec", "behavior", "scaleDown", "stabilizationWindowSeconds"], value: 3601 },
      ];
    },
  },
  {
    name: "claim spec",
    mutate: (_o, all) =>
      all
        .filter((s) => s.type === "V1PersistentVolumeClaimSpec")
        .flatMap((s) => [
          { field: [...s.path, "accessModes"], value: [] },
          { field: [...s.path, "accessModes"], value: ["ReadWriteOncePod", "ReadWriteOnce"] },
          { field: [...s.path, "resources", "requests", "storage"], value: "0" },
          { field: [...s.path, "resources", "requests"], value: { cpu: "1" } },
          { field: [...s.path, "storageClassName"], value: "Fast_SSD" },
          { field: [...s.path, "dataSource"], value: { kind: "Pod", name: "web" } },
          { field: [...s.path, "dataSource"], value: { apiGroup: "Snapshot.Storage", kind: "VolumeSnapshot", name: "nightly" } },
        ]),
  },
  {
    name: "affinity and tolerations",
    mutate: (_o, all, pick) => {
      const spec = pick(podSpecs(all));
      if (!spec) return [];
      const zone = (operator: string, values?: string[]) => ({ key: "topology.kubernetes.io/zone", operator, ...(values ? { values } : {}) });
      const required = (term: unknown) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } } });
      const antiAffinity = (term: Record<string, unknown>) => ({
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "web" } }, ...term }] },
      });
      const tolerations = [
        { key: "", operator: "Equal", value: "x" },
        { key: "dedicated", operator: "Exists", value: "gpu" },
        { key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule", tolerationSeconds: 30 },
        { key: "bad key!", operator: "Exists" },
        { key: "dedicated", value: "-gpu-" },
        { operator: "Exists" },
      ].map((t) => ({ field: [...spec.path, "tolerations"], value: [t] }));
      const affinities = [
        { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
        required({ matchExpressions: [zone("In", [])] }),
        required({ matchExpressions: [zone("Exists", ["a"])] }),
        required({ matchExpressions: [zone("Gt", ["1", "2"])] }),
        required({ matchExpressions: [zone("In", ["-bad-"])] }),
        required({ matchExpressions: [{ key: "bad key!", operator: "Exists" }] }),
        required({ matchFields: [{ key: "metadata.namespace", operator: "In", values: ["x"] }] }),
        required({ matchFields: [{ key: "metadata.name", operator: "In", values: ["a", "b"] }] }),
        required({ matchFields: [{ key: "metadata.name", operator: "In", values: ["Node_1"] }] }),
        { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: { matchExpressions: [zone("In", ["a"])] } }] } },
        { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [zone("In", ["-ok-"])] } }] } },
        antiAffinity({ topologyKey: "" }),
        antiAffinity({ topologyKey: "bad key!" }),
        antiAffinity({ topologyKey: "kubernetes.io/hostname", namespaces: ["Bad_NS"] }),
        antiAffinity({ topologyKey: "kubernetes.io/hostname", labelSelector: { matchExpressions: [{ key: "app", operator: "In", values: [] }] } }),
        {
          podAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 101, podAffinityTerm: { labelSelector: {}, topologyKey: "kubernetes.io/hostname" } }],
          },
        },
      ].map((value) => ({ field: [...spec.path, "affinity"], value }));
      return [...tolerations, ...affinities];
    },
  },
  {
    name: "ingress rules",
    mutate: (o) => {
      if (o.kind !== "Ingress") return [];
      const rule = ["spec", "rules", 0];
      const path = [...rule, "http", "paths", 0];
      const service = (port: Record<string, unknown>, name = "web") => ({ service: { name, port } });
      return [
        { field: ["spec", "rules"], value: [] },
        { field: [...rule, "host"], value: "10.0.0.1" },
        { field: [...rule, "host"], value: "*.example.com" },
        { field: [...rule, "host"], value: "*.*.example.com" },
        { field: [...rule, "host"], value: "Web.Example.com" },
        { field: [...rule, "http", "paths"], value: [] },
        { field: [...path, "path"], value: "web" },
        { field: [...path, "path"], value: "/a//b" },
        { field: [...path, "path"], value: "/a/.." },
        { field: [...path, "pathType"], value: "ImplementationSpecific" },
        { field: [...path, "backend"], value: {} },
        { field: [...path, "backend"], value: service({ name: "http", number: 80 }) },
        { field: [...path, "backend"], value: service({}) },
        { field: [...path, "backend"], value: service({ number: 70000 }) },
        { field: [...path, "backend"], value: service({ name: "http_1" }) },
        { field: [...path, "backend"], value: service({ number: 80 }, "9web") },
        { field: [...path, "backend"], value: { resource: { apiGroup: "Storage.K8s", kind: "Bucket", name: "assets" } } },
        { field: [...path, "backend"], value: { resource: { kind: "Bucket", name: "a/b" } } },
        { field: ["spec", "tls"], value: [{ hosts: ["Web.example.com"], secretName: "web-tls" }] },
        { field: ["spec", "tls"], value: [{ hosts: ["web.example.com"], secretName: "Web_TLS" }] },
        { field: ["spec", "ingressClassName"], value: "Nginx_Public" },
        { field: ["metadata", "annotations"], value: { "kubernetes.io/ingress.class": "traefik" } },
      ];
    },
  },
  {
    name: "security context",
    mutate: (o, all, pick) => {
      const spec = pick(podSpecs(all));
      if (!spec) return [];
      const pod = (value: unknown) => ({ field: [...spec.path, "securityContext"], value });
      const containers = get(o, [...spec.path, "containers"]) as Obj[];
      const container = (value: unknown) => ({
        field: [...spec.path, "containers"],
        value: [{ ...containers[0], securityContext: value }, ...containers.slice(1)],
      });
      return [
        pod({ runAsUser: -1 }),
        pod({ fsGroup: 2147483648 }),
        pod({ supplementalGroups: [1000, -5] }),
        pod({ seccompProfile: { type: "Localhost" } }),
        pod({ seccompProfile: { type: "Localhost", localhostProfile: "../escape.json" } }),
        pod({ seccompProfile: { type: "RuntimeDefault", localhostProfile: "profiles/a.json" } }),
        pod({ appArmorProfile: { type: "Localhost", localhostProfile: " padded " } }),
        pod({ appArmorProfile: { type: "Localhost" } }),
        pod({ appArmorProfile: { type: "Unconfined", localhostProfile: "x" } }),
        { field: [...spec.path, "shareProcessNamespace"], value: true },
        container({ runAsGroup: -1 }),
        container({ allowPrivilegeEscalation: false, privileged: true }),
        container({ allowPrivilegeEscalation: false, capabilities: { add: ["CAP_SYS_ADMIN"] } }),
        container({ allowPrivilegeEscalation: false, capabilities: { add: ["SYS_ADMIN"] } }),
        container({ seccompProfile: { type: "Localhost", localhostProfile: "/abs.json" } }),
      ];
    },
  },
  {
    name: "cron schedule and time zone",
    mutate: (o) =>
      o.kind !== "CronJob"
        ? []
        : [
            ...["", "0 0 * * * *", "*/5 * * *", "TZ=UTC 0 0 * * *", "@fortnightly", "@daily", "0 3 * * MON-FRI"].map((value) => ({
              field: ["spec", "schedule"],
              value,
            })),
            ...["", "Local", "Europe/Berlin", "Mars/../x", "America/Ciudad_Juarez_X"].map((value) => ({ field: ["spec", "timeZone"], value })),
          ],
  },
  {
    name: "cron fields and zone names",
    notJudged: "a schedule field's values need robfig/cron's grammar, and a zone's existence the zone database: rigging carries neither",
    mutate: (o) =>
      o.kind !== "CronJob"
        ? []
        : [
            { field: ["spec", "schedule"], value: "61 * * * *" },
            { field: ["spec", "schedule"], value: "0 0 31 FOO *" },
            { field: ["spec", "timeZone"], value: "Mars/Olympus" },
          ],
  },
];
