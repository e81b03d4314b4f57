// Common kinds as the Kubernetes documentation writes them, each valid: the
// objects the differential harness mutates beside the examples' own.
const labels = { app: "web" };

const podSpec = () => ({
  containers: [
    {
      name: "web",
      image: "nginx:1.27",
      imagePullPolicy: "IfNotPresent",
      ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
      resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "500m", memory: "128Mi" } },
      readinessProbe: { httpGet: { path: "/", port: "http", scheme: "HTTP" }, periodSeconds: 10 },
      volumeMounts: [{ name: "cache", mountPath: "/cache" }],
      securityContext: { allowPrivilegeEscalation: false, seccompProfile: { type: "RuntimeDefault" } },
    },
  ],
  volumes: [{ name: "cache", emptyDir: { sizeLimit: "1Gi" } }],
  terminationGracePeriodSeconds: 30,
  dnsPolicy: "ClusterFirst",
});

const template = (spec = podSpec()) => ({ metadata: { labels }, spec });
const meta = (name: string) => ({ name, labels });

export const CORPUS: readonly Record<string, unknown>[] = [
  { apiVersion: "v1", kind: "Pod", metadata: meta("debug"), spec: { ...podSpec(), restartPolicy: "Never" } },
  { apiVersion: "apps/v1", kind: "Deployment", metadata: meta("web"), spec: { replicas: 2, selector: { matchLabels: labels }, template: template() } },
  {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: meta("db"),
    spec: {
      serviceName: "db",
      replicas: 1,
      podManagementPolicy: "OrderedReady",
      selector: { matchLabels: labels },
      template: template(),
      volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
    },
  },
  { apiVersion: "apps/v1", kind: "DaemonSet", metadata: meta("agent"), spec: { selector: { matchLabels: labels }, template: template() } },
  {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: meta("once"),
    spec: { backoffLimit: 3, completionMode: "NonIndexed", template: { spec: { ...podSpec(), restartPolicy: "Never" } } },
  },
  {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: meta("nightly"),
    spec: {
      schedule: "0 3 * * *",
      concurrencyPolicy: "Forbid",
      startingDeadlineSeconds: 600,
      jobTemplate: { spec: { template: { spec: { ...podSpec(), restartPolicy: "OnFailure" } } } },
    },
  },
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: meta("web"),
    spec: { type: "ClusterIP", selector: labels, ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }] },
  },
  {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: meta("web"),
    spec: {
      ingressClassName: "nginx",
      rules: [
        {
          host: "web.example.com",
          http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { name: "http" } } } }] },
        },
      ],
    },
  },
  { apiVersion: "v1", kind: "ConfigMap", metadata: meta("settings"), data: { "app.properties": "color=blue\n" } },
  { apiVersion: "v1", kind: "Secret", metadata: meta("token"), type: "Opaque", data: { token: "c2VjcmV0" } },
  { apiVersion: "v1", kind: "ServiceAccount", metadata: meta("web"), automountServiceAccountToken: false },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: meta("reader"),
    rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }],
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: meta("reader"),
    subjects: [{ kind: "ServiceAccount", name: "web", namespace: "diff" }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" },
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: meta("node-reader"),
    rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get"] }],
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: meta("node-reader"),
    subjects: [{ kind: "Group", name: "ops", apiGroup: "rbac.authorization.k8s.io" }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "node-reader" },
  },
  {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: meta("web"),
    spec: {
      podSelector: { matchLabels: labels },
      policyTypes: ["Ingress", "Egress"],
      ingress: [{ from: [{ podSelector: {} }], ports: [{ protocol: "TCP", port: 8080 }] }],
      egress: [{ to: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }], ports: [{ protocol: "TCP", port: 443, endPort: 8443 }] }],
    },
  },
  { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: meta("web"), spec: { minAvailable: 1, selector: { matchLabels: labels } } },
  {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: meta("web"),
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      minReplicas: 2,
      maxReplicas: 10,
      metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } }],
      behavior: { scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: "Percent", value: 50, periodSeconds: 60 }] } },
    },
  },
  {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: meta("policy-hooks"),
    webhooks: [
      {
        name: "validate.policy.example.com",
        clientConfig: { service: { name: "policy", namespace: "policy-system", path: "/validate", port: 443 } },
        rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments", "deployments/scale"] }],
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        timeoutSeconds: 5,
        failurePolicy: "Fail",
      },
    ],
  },
  {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: meta("fast-ssd"),
    provisioner: "ebs.csi.aws.com",
    parameters: { type: "gp3" },
    reclaimPolicy: "Delete",
    volumeBindingMode: "WaitForFirstConsumer",
    allowedTopologies: [{ matchLabelExpressions: [{ key: "topology.kubernetes.io/zone", values: ["eu-west-1a"] }] }],
  },
  {
    apiVersion: "networking.k8s.io/v1",
    kind: "IngressClass",
    metadata: meta("nginx"),
    spec: { controller: "k8s.io/ingress-nginx", parameters: { apiGroup: "k8s.example.com", kind: "IngressParameters", name: "external", scope: "Cluster" } },
  },
  {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: meta("data"),
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } }, storageClassName: "fast-ssd" },
  },
];
