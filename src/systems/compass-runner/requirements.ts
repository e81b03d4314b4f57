// The Compass Runner's requirements (CR-), as data: rules, values refusals, `explain` and the docs read them.
import { defineRequirements } from "../../rules/requirement-data.ts";
import type { GeneralRefusedBy } from "../../rules/general-requirements.ts";
import { FORBIDDEN_HOST_ROOTS, HOSTNAME_LABEL, RUNNER_AUDIENCE, TOKEN_MAX_SECONDS, TOKEN_MIN_SECONDS, TOKEN_PATH, VOLUME_ROOT } from "./interface.ts";
import { GITOPS_APPLIER, INFERRED_E } from "../../admission/opinions.ts";

const RUNNER = ["compass-runner"];

export const CR = defineRequirements({
  "CR-01": {
    summary: "The Runner object set: ServiceAccount, DaemonSet, admission policies and bindings, NetworkPolicy",
    inValues: "an inline `serverCA.pem` adds a ConfigMap that carries it.",
    fix: "apply the whole set together: ServiceAccount, DaemonSet, the CR-06 policies with bindings, and the NetworkPolicy",
    why: "The Runner is safe only as a whole: the DaemonSet without its NetworkPolicy can reach anything, without the admission policies anyone with pod create rights can exec into it or mint its token, and without its own ServiceAccount it runs as default.",
    severity: "error",
    reads:
      "admission policies without the Runner's labels belong to it when their namespaceSelector (matchLabels or matchExpressions) selects its namespace and not every namespace",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["extraObjects"], value: [{ kind: "Service" }] }], path: "extraObjects" },
  },
  "CR-02": {
    summary: "The Server address (--server or COMPASS_SERVER_ADDR) is an absolute https:// URL without userinfo, query or fragment",
    fix: "set COMPASS_SERVER_ADDR or --server (values: serverAddr) to an https:// URL such as https://compass.example.com",
    why: 'The Compass Runner manifests guide: "the Server address (an absolute https:// URL)". compass-runner reads it from --server or COMPASS_SERVER_ADDR and exits with "a server address is required" without one. The Runner presents its enrollment token to that address; over plain http, or to a URL with userinfo, query or fragment that the client may resolve differently, the token can leak or go to the wrong host.',
    source: { from: "documented", says: "the Compass Runner manifests guide; RigelBuild/compass go/cmd/compass-runner/main.go" },
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["serverAddr"], delete: true }], path: "serverAddr" },
  },
  "CR-03": {
    summary: `The only credential is a projected token at the token file (${TOKEN_PATH}, as the Compass Runner manifests guide writes it), audience ${RUNNER_AUDIENCE}, ${TOKEN_MIN_SECONDS} to ${TOKEN_MAX_SECONDS} s`,
    inValues:
      "`tokenExpirationSeconds` (default 600) is the token's `expirationSeconds`, 600 to 4294967296 and no higher than `maxTokenLifetimeSeconds` (default 600), the Server entry's `maxTokenLifetime`.",
    fix: `mount a projected serviceAccountToken (audience ${RUNNER_AUDIENCE}, expirationSeconds ${TOKEN_MIN_SECONDS}..${TOKEN_MAX_SECONDS}) read-only and point COMPASS_RUNNER_TOKEN_FILE (or --token-file) at it: ${TOKEN_PATH}`,
    why: "The Compass Runner manifests guide: \"The DaemonSet uses a projected compass-runner ServiceAccount token at /var/run/secrets/compass/runner/token. Set tokenExpirationSeconds between 600 and 4294967296, and no higher than the matching Server cluster's maxTokenLifetime.\" compass-runner reads the file named by --token-file or COMPASS_RUNNER_TOKEN_FILE on every call. The Server verifies the audience and the lifetime: a wrong audience or a lifetime above the cluster entry's maximum makes enrollment fail with an error that points elsewhere (attestation_invalid). Kubernetes itself refuses expirationSeconds below 600.",
    source: { from: "documented", says: "the Compass Runner manifests guide; RigelBuild/compass go/cmd/compass-runner/main.go" },
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["tokenExpirationSeconds"], value: 599 }], path: "tokenExpirationSeconds" },
  },
  "CR-04": {
    summary:
      "Namespace, ServiceAccount and audience equal the Server's cluster entry (from values; from manifests when the Server is in the same input, else only the pod's own ServiceAccount)",
    inValues:
      "`serverCluster.namespace`, `serviceAccount` and `audience`, when given, must equal the Runner's `namespace`, `serviceAccount` and `compass-runner`; in a `kind: Compass` file the entry is derived from the `runner` section.",
    fix: "set serverCluster.{namespace, serviceAccount, audience} to the Runner's namespace, ServiceAccount and compass-runner; in manifests, make the Server's --runner-clusters entry name the Runner's namespace and ServiceAccount, with audience compass-runner",
    why: "The Compass Runner manifests guide: \"The namespace, ServiceAccount, and audience (compass-runner) must match that Server cluster entry.\" The Server accepts a token only from the ServiceAccount and namespace it was told about; a Runner under another ServiceAccount (or default) never enrolls. When the Server's objects are checked in the same input as the Runner's, its --runner-clusters file is read as the Server reads it and compared with the DaemonSet; alone, only the pod's own ServiceAccount can be compared.",
    source: { from: "documented", says: "the Compass Runner manifests guide; RigelBuild/compass go/internal/auth/runner_clusters.go" },
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["namespace"], value: "Compass_Runner" }], path: "namespace" },
  },
  "CR-05": {
    summary: "The Runner ServiceAccount has no RBAC binding and no API token",
    inValues:
      "`automountServiceAccountToken` is refused: rigging renders no binding and sets `automountServiceAccountToken: false` on the ServiceAccount and the pod *(inferred: the API token would be an unused credential)*.",
    fix: "remove every Role, ClusterRole and binding for the Runner; set automountServiceAccountToken: false on the ServiceAccount and the pod",
    why: 'The Compass Runner manifests guide: "The ServiceAccount has no RBAC binding." The Runner never calls the Kubernetes API; any binding is power an attacker who breaks out of a microVM would inherit. The automatically mounted API token would be an unused credential on disk (inferred).',
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["rbac"], value: { create: true } }], path: "rbac" },
  },
  "CR-06": {
    summary: "Admission policies guard Runner pods, new pods, the DaemonSet and Runner tokens, by who asks and by what the request does",
    inValues:
      "`admission.controllers` may create Runner pods, `admission.deployers` may change the DaemonSet, and `admission.breakGlassGroups` (default `[system:masters]`) may exec, attach, debug and request Runner tokens.",
    fix: "apply the four ValidatingAdmissionPolicies (failurePolicy: Fail) with their bindings (validationActions: [Deny]) that rigging renders, applied by a member of admission.deployers (docs/compass-runner-admission.md)",
    why:
      'The Compass Runner manifests guide: the admission policy "denies exec, attach, and ephemeral containers on Runner pods except to admission.breakGlassGroups (default system:masters)"; only admission.controllers create Runner pods and only admission.deployers change the DaemonSet. ' +
      "The Runner namespace runs at Pod Security privileged for its hostPath trees (G-10), so these policies are its only guard rails, and they must judge what a request does, not only who sends it (inferred, CR-06e): " +
      "port-forward and proxy get around the NetworkPolicy like exec gets around everything; patching a running pod's image or labels hands the Runner's token, host trees and KVM to another program or takes the pod out of its NetworkPolicy; " +
      "system:kube-controller-manager creates the pods of every controller when controllers share its credentials, so only a controller ownerReference to the Runner DaemonSet tells a Runner pod apart; " +
      "a deployer (or a GitOps controller many people commit to) could otherwise make the DaemonSet privileged, mount the host root or drop hostUsers: false. " +
      "An API server without user namespaces drops hostUsers: false without an error, so the policies refuse a Runner pod without it instead of running it in the host user namespace. " +
      "Anyone who can mint a token for the Runner ServiceAccount can enroll as a Runner (CR-06d, inferred), so only kubelets and the break-glass groups may.",
    source: { from: "documented", says: "the Compass Runner manifests guide; RigelBuild/compass tools/runner-manifests/render-core.ts" },
    severity: "error",
    reads:
      "each request on the object after the API server's defaults (restartPolicy Always, ...); namespaceSelector and objectSelector as label selectors, matchLabels and matchExpressions alike",
    profiles: RUNNER,
    // The keys the admission judge reports its warnings under.
    opinions: {
      "port-forward-proxy": { summary: "port-forward and proxy on Runner pods are denied like exec (CR-06e)", because: INFERRED_E },
      "gitops-applier": { summary: "every GitOps controller the input names may apply the Runner DaemonSet (admission.deployers)", because: GITOPS_APPLIER },
      "cel-unjudged": {
        summary: "every policy can be evaluated",
        because:
          "rigging evaluates the standard CEL library and its strings extension; Kubernetes' own libraries (authorizer, quantity, url...) are not evaluated",
      },
    },
    refusedBy: { edits: [{ at: ["admission", "deployers"], value: [] }], path: "admission.deployers" },
  },
  "CR-07": {
    summary: "One Runner node: the DaemonSet pins a node (kubernetes.io/hostname proves one), and rolls out with maxSurge 0, maxUnavailable 1",
    inValues:
      "`nodeSelector: {key: kubernetes.io/hostname, value: <node>}` proves one node; another label renders with a warning and a checklist line that exactly one node carries it. `maxUnavailable` must be 1.",
    fix: `select one node with nodeSelector ${HOSTNAME_LABEL}: <node> (another label is accepted with a warning), and set updateStrategy.rollingUpdate {maxSurge: 0, maxUnavailable: 1}`,
    why: 'The Compass Runner manifests guide: "Rollout beyond one node waits for the multi-Runner hub." The Compass Server-on-Kubernetes design (D1): one Runner per Server. A DaemonSet without a node selector starts a Runner on every node, and the Server holds one Runner. The Runner ID is per node, so the upstream tool refuses any rollout but maxSurge 0 and maxUnavailable 1. A label other than kubernetes.io/hostname cannot prove that one node carries it: a warning.',
    source: { from: "documented", says: "the Compass Runner manifests guide; RigelBuild/compass tools/runner-manifests/render-core.ts" },
    opinions: {
      "one-node-label": {
        summary: "a node label other than kubernetes.io/hostname",
        because:
          "nothing in the manifests proves that exactly one node carries the label (the Compass Runner manifests guide and CR-07 accept it with a warning and a checklist line)",
      },
    },
    severity: "error",
    reads: "maxSurge and maxUnavailable as the DaemonSet controller scales them on the Runner's one node, rounded up (0% is 0, 50% is 1)",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["maxUnavailable"], value: 2 }], path: "maxUnavailable" },
  },
  "CR-08": {
    summary: "KVM comes from a device plugin: request and limit 1 of its extended resource; no hostPath under /dev",
    inValues:
      "`kvmResourceName` (`domain/name`, not in `kubernetes.io`) is requested and limited at 1. A host tree (`hostPaths.*`) that is `/dev` or under it, in any spelling (`/dev/./kvm`), is refused.",
    fix: "remove the /dev hostPath and request and limit 1 of the device plugin's resource (kvmResourceName, such as devices.kubelet.io/kvm), which injects /dev/kvm",
    why: "The Compass Runner manifests guide: \"Install an operator-selected, digest-pinned device plugin that advertises the configured kvmResourceName for /dev/kvm. The plugin injects the device and its cgroup device allowance; no /dev hostPath is used.\" A /dev hostPath gives no cgroup device allowance under a user namespace and exposes more of the host than KVM. The resource's name is the operator's choice, so any extended resource (domain/name) limited to 1 counts.",
    source: { from: "documented", says: 'the Compass Runner manifests guide: "no /dev hostPath is used"; the device plugin advertises kvmResourceName' },
    severity: "error",
    reads:
      "the device resource by value as a Kubernetes quantity (1000m = 1); hostPaths cleaned (//dev/kvm and /dev/./kvm are under /dev); a /dev hostPath is this finding alone, not a host tree of CR-11 nor a CR-06 refusal of the DaemonSet",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["kvmResourceName"], value: "kvm" }], path: "kvmResourceName" },
  },
  "CR-09": {
    summary: "The pod runs in a user namespace: hostUsers: false",
    fix: "set hostUsers: false in the pod spec, on Kubernetes 1.33 or newer (1.32 with the feature gates UserNamespacesSupport and ProcMountType)",
    why: "The Runner must create namespaces and mount filesystems for its microVMs; hostUsers: false lets it do so as root inside a user namespace that maps to an unprivileged range on the host. Without it those calls need real host privileges, or they fail.",
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["hostUsers"], value: true }], path: "hostUsers" },
  },
  "CR-10": {
    summary: "seccomp is Localhost with a relative .json profile path without ..",
    inValues: "`seccompProfilePath` (default `profiles/compass-runner.json`) becomes `localhostProfile`: relative, without `..`, ending in `.json`.",
    fix: "set seccompProfile {type: Localhost, localhostProfile: profiles/compass-runner.json} and stage seccomp/compass-runner.json there",
    why: "The Compass Runner manifests guide: \"Stage seccomp/compass-runner.json at the kubelet seccomp root under the configured seccompProfilePath\". The container runtime's default profile blocks clone, unshare and mount that a microVM launcher needs; Unconfined would allow everything. The path is relative to the kubelet's seccomp root, so an absolute path or .. never resolves.",
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["seccompProfilePath"], value: "compass/profile" }], path: "seccompProfilePath" },
  },
  "CR-11": {
    summary: "Two distinct, non-overlapping host trees outside system paths; the volume root is a subdirectory of the session mount; uid and gid 65532",
    inValues:
      "`hostPaths.sessionVolumeRoot` and `hostPaths.runtimeRoot`: absolute, normalized, distinct and non-overlapping, never `/` nor under `/proc`, `/sys`, `/etc`, `/var/run/secrets` (under `/dev` is CR-08's refusal).",
    fix: `mount the session and runtime host trees (absolute, distinct, outside ${FORBIDDEN_HOST_ROOTS.join(", ")}), set COMPASS_MICROVM_VOLUME_ROOT to a subdirectory of the session mount (${VOLUME_ROOT}), run as 65532:65532`,
    why: 'The Compass Runner manifests guide: "Provide the session-volume host tree on a filesystem configured for project quotas. Provide the separate runtime host tree for stale-session reaping. Own both by uid and gid 65532: user-namespaced pods mount them idmapped." The Compass Server-on-Kubernetes design (P8): pointing COMPASS_MICROVM_VOLUME_ROOT at the mount point itself makes the quota probe indeterminate, which stops a Runner that requires quotas; it must be a subdirectory. Overlapping trees, or trees under /dev, /proc, /sys, /etc or /var/run/secrets, hand the Runner host state it must not touch.',
    source: {
      from: "documented",
      says: "the Compass Runner manifests guide; the Compass Server-on-Kubernetes design (P8); go/internal/runtime/microvm_quota_linux.go",
    },
    severity: "error",
    reads:
      "hostPaths, mount paths and the volume root cleaned as the kubelet and the kernel read them (`/a//b/./` is `/a/b`); `..` in a hostPath is refused as the API server refuses it",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["hostPaths", "sessionVolumeRoot"], value: "/" }], path: "hostPaths.sessionVolumeRoot" },
  },
  "CR-12": {
    summary: "nodeSelector keys and tolerations are valid (label key syntax, operator and effect enums)",
    inValues:
      "`nodeSelector` {key, value} and `toleration` {key, value, effect} are validated (label syntax; effect `NoSchedule`, `PreferNoSchedule` or `NoExecute`); the toleration is rendered with operator `Equal`, and a `tolerations` list is refused.",
    fix: "use label keys as on the node; tolerations take operator Exists or Equal and effect NoSchedule, PreferNoSchedule or NoExecute",
    why: 'The Compass Runner manifests guide: "Configure node selectors, taints ...". A toleration with a misspelled operator or effect, or a selector key that is not a label key, is rejected by the API server or silently never matches, and the Runner pod stays Pending.',
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["tolerations"], value: [] }], path: "tolerations" },
  },
  "CR-13": {
    summary: "amd64 only until an arm64 KVM boot passes: the pod requires kubernetes.io/arch: amd64",
    inValues: "`arch` is only `amd64`, its default; `arm64`, there or as `kubernetes.io/arch` in `nodeSelector`, is refused.",
    fix: "set nodeSelector kubernetes.io/arch: amd64 (or a required nodeAffinity for amd64 alone)",
    why: 'The Compass Server-on-Kubernetes design: "the Runner stays amd64-only until an arm64 KVM boot passes". On an arm64 node the image may run but the microVM guest does not boot.',
    source: { from: "documented", says: "the Compass Server-on-Kubernetes design (D10)" },
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["arch"], value: "arm64" }], path: "arch" },
  },
  "CR-14": {
    summary: "The Server CA parses as PEM certificates and --server-name is a DNS name",
    inValues:
      "`serverCA.pem` must parse as PEM certificates (rendered into a ConfigMap), or `serverCA` names a `configMap` or `secret` {name, key}; `serverName` is passed as `--server-name` and is accepted only with `designed.P9` (CS-14).",
    fix: "give the Server CA as PEM certificates in a ConfigMap or Secret, and --server-name as a DNS name such as compass.example.com",
    why: 'The Compass Server-on-Kubernetes design (D7, P9): the Runner verifies the Server with serverCA, and --server-name "sets tls.Config.ServerName ... This lets a Runner dial the in-cluster Service and still verify a certificate that names only the public host." A CA that does not parse, or a server name that is not a DNS name, makes every TLS handshake fail.',
    source: { from: "documented", says: "the Compass Server-on-Kubernetes design (D7, P9); RigelBuild/compass go/cmd/compass-runner/main.go (--ca)" },
    opinions: {
      "designed-flag": {
        summary: "--server-name is P9's, designed: a Runner without P9 exits 2 on it (CS-14)",
        because:
          "no released compass-runner declares --server-name, and Go's flag package exits 2 on an unknown flag; a Runner built with task P9 of the Compass Server-on-Kubernetes design reads it",
      },
    },
    severity: "error",
    profiles: RUNNER,
    refusedBy: {
      edits: [
        { at: ["serverCA", "configMap"], delete: true },
        { at: ["serverCA", "pem"], value: "-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n" },
      ],
      path: "serverCA.pem",
    },
  },
  "CR-15": {
    summary: "NetworkPolicy: no ingress; egress only to DNS, the Server and egressAllow",
    fix: "select the Runner pods with a NetworkPolicy listing Ingress and Egress with no ingress rules and egress rules that each name a destination",
    why: "The Compass Server-on-Kubernetes design (D7): Runner egressAllow. The Runner executes untrusted workloads; a pod that accepts connections or reaches any destination turns one escape into access to the cluster network. Only DNS, the Server and the listed destinations are needed.",
    severity: "error",
    reads:
      "ipBlocks as address ranges: a /0 in any spelling (0::/0, 10.0.0.0/0), or ipBlocks on the same ports whose union is a whole address family (two /1 halves)",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["egressAllow"], value: [{ ports: [{ port: 443 }] }] }], path: "egressAllow[0]" },
  },
  "CR-16": {
    summary: "Metrics are pushed over OTLP: no container port, no Service, no scrape annotations",
    fix: "remove ports, Services and prometheus.io annotations; set OTEL_EXPORTER_OTLP_ENDPOINT to push metrics",
    why: 'The Compass Runner manifests guide: "Metrics: set OTEL_EXPORTER_OTLP_ENDPOINT to push them. The Runner serves no scrape endpoint." A port, Service or scrape annotation advertises an endpoint that does not exist and opens a hole in the no-ingress policy (CR-15).',
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["otel", "endpoint"], value: "collector:4318" }], path: "otel.endpoint" },
  },
  "CR-17": {
    summary: "The Server assigns the Runner ID at enrollment: no Runner ID in manifests",
    inValues: "`runnerId` is refused.",
    fix: "remove the Runner ID (values: runnerId; manifests: COMPASS_RUNNER_ID and --runner-id); the Server assigns the ID when the Runner enrolls",
    why: 'The Compass Runner manifests guide: "The Server assigns each Runner ID during enrollment." With a token file the Server derives the ID (<cluster>/<node>) and checks a non-empty one the Runner sends: a Runner ID in the manifests makes enrollment fail.',
    source: { from: "documented", says: "the Compass Runner manifests guide; RigelBuild/compass go/cmd/compass-runner/main.go" },
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["runnerId"], value: "runner-1" }], path: "runnerId" },
  },
  "CR-18": {
    summary: "Node prerequisites no manifest can express are printed as a checklist after a render",
    profiles: RUNNER,
    judged: {
      by: "elsewhere",
      where: "render prints the checklist on stderr after every Compass Runner render; docs/compass-runner.md carries the same list",
      checkNote:
        "node prerequisites (KVM device plugin, /dev/kvm 0666, user namespaces, the staged seccomp file, host trees owned by 65532 on a project-quota filesystem) cannot be seen in manifests; see rigging explain CR-18",
    },
    noValues: "node prerequisites: render prints them as a checklist for every values file; no values can break or meet them",
  },
  "CR-19": {
    summary:
      "Resources follow capacity (memory request = limit, a cpu request, no cpu limit); a priority class; procMount Unmasked and AppArmor Unconfined; no probe on the Runner container",
    inValues:
      "`sessionCapacity`, `guestMemoryMiB`, `guestCpus`, `runnerOverheadMiB`, `perSessionReapSeconds` and `priorityClassValue` give the resources, grace period and PriorityClass; `resources` is refused. The container is rendered with `procMount: Unmasked` and `appArmorProfile: Unconfined`, because the microVM stack mounts filesystems that a masked `/proc` and the default AppArmor profile deny. It has no probe: `livenessProbe`, `startupProbe` and `readinessProbe` are refused, because a restart of the container tears down every session on the node.",
    fix: "set memory request = limit = sessionCapacity x guestMemoryMiB + runnerOverheadMiB (Mi), cpu request = sessionCapacity x guestCpus without a cpu limit, priorityClassName, and securityContext procMount: Unmasked with appArmorProfile {type: Unconfined}; remove the Runner container's livenessProbe, startupProbe and readinessProbe",
    why: "The upstream runner-manifests tool derives these. Guest RAM is charged to the pod's cgroup, so a memory limit below the guests' total OOM-kills the Runner and every session on the node; a cpu limit throttles the VMMs. The microVM stack mounts filesystems: a masked /proc and the default AppArmor profile deny that, and the Runner cannot start its guests. A restart of the Runner container tears down every microVM session on the node, so the upstream tool renders no liveness probe, and no readiness or startup probe: a failed liveness or startup probe makes the kubelet restart the container. The Runner serves no endpoint, so a network readiness probe never passes; a readiness probe restarts nothing, so it is a warning.",
    source: { from: "upstream", says: "RigelBuild/compass tools/runner-manifests/render-core.ts" },
    // Errors where the Runner cannot work (an OOM kill, guests that cannot boot, a probe's restart); upstream's other choices are warnings.
    opinions: {
      "memory-request": {
        summary: "a memory request that is not the memory limit",
        because:
          "upstream's tool sets them equal, so the scheduler reserves the RAM the guests will use; below the limit the node can be overcommitted, but the Runner boots and runs",
      },
      "cpu-request": {
        summary: "no cpu request",
        because: "upstream's tool requests sessionCapacity x guestCpus, so the scheduler reserves the guests' vCPUs; the Runner boots and runs without it",
      },
      "cpu-limit": {
        summary: "a cpu limit",
        because: "a cpu limit throttles the guests' VMMs (upstream's tool sets none); the Runner still boots and runs",
      },
      "readiness-probe": {
        summary: "a readiness probe on the Runner container",
        because:
          "upstream's tool renders none, and the Runner serves no endpoint, so a network probe never passes and the pod never turns Ready; a failed readiness probe restarts nothing, so the sessions survive",
      },
      "priority-class": {
        summary: "no priorityClassName",
        because: "upstream's tool sets one so that ordinary workloads cannot preempt the Runner and its sessions; the Runner runs without it",
      },
    },
    severity: "error",
    reads: "memory by value as a Kubernetes quantity (2Gi = 2048Mi), against COMPASS_MICROVM_MEMORY_MB read as compass-runner's strconv.Atoi reads it",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["guestCpus"], value: 1.5 }], path: "guestCpus" },
  },
  "CR-20": {
    summary:
      "The Runner container speaks compass-runner's real interface: run root and volume root set, integers where it reads integers; never a Runner token, an agent image or a name it does not read",
    inValues:
      "rigging writes only names compass-runner reads; `runnerTokenSecret` and `agentImage` are refused. In manifests, `check` warns on a `COMPASS_*` variable compass-runner does not read, with a did-you-mean.",
    fix: "set COMPASS_MICROVM_RUNROOT on a writable host tree and COMPASS_MICROVM_VOLUME_ROOT; remove COMPASS_RUNNER_TOKEN and COMPASS_AGENT_IMAGE; use only the names compass-runner reads (rigging explain CR-20)",
    why: 'compass-runner (RigelBuild/compass go/cmd/compass-runner/main.go) stops at boot without a run root ("run-root is not configured"), with a static token beside the token file ("runner token sources are mutually exclusive"), with an agent image on the microVM backend, with a non-integer guest size, and with a required quota but no volume root. A variable it does not read (COMPASS_SERVER_URL, say) changes nothing: the setting it was meant for is missing.',
    source: { from: "upstream", says: "RigelBuild/compass go/cmd/compass-runner/main.go; RigelBuild/compass go/internal/runtime/microvm_preflight.go" },
    opinions: {
      "unknown-variable": {
        summary: "a COMPASS_* variable compass-runner does not read",
        because: "it changes nothing at boot, so the setting it was meant for is probably missing (often an old or misspelled name)",
      },
    },
    severity: "error",
    reads: "the run root against mount paths cleaned as the kubelet cleans them",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["runnerTokenSecret"], value: { name: "x", key: "y" } }], path: "runnerTokenSecret" },
  },
});

/** How the Compass Runner's values break the general requirements: its record carries them. */
export const CR_GENERAL_REFUSED_BY: GeneralRefusedBy = {
  "G-04": { edits: [{ at: ["admission", "deployers"], value: ["AKIAIOSFODNN7EXAMPLE"] }], path: "admission.deployers[0]" },
  "G-06": { edits: [{ at: ["securityContext"], value: { privileged: true } }], path: "securityContext" },
  "G-07": { edits: [{ at: ["name"], value: "Compass Runner" }], path: "name" },
  "G-09": { edits: [{ at: ["imagePullSecrets"], value: [{ name: "regcred" }] }], path: "imagePullSecrets" },
  "G-10": { edits: [{ at: ["podSecurityLevel"], value: "baseline" }], path: "podSecurityLevel" },
};
