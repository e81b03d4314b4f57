// Rules of the Compass Runner (CR-), judged from manifests alone. They run
// over `render`'s own output and over anyone's manifests in `check`.
import { X509Certificate } from "node:crypto";
import { httpsUrlProblem } from "../../core/common-values.ts";
import { DNS1123_SUBDOMAIN, isLabelKey } from "../../core/names.ts";
import type { K8sObject } from "../../core/objects.ts";
import { splitPem } from "../../core/pem.ts";
import { dig, hit, type ContainerRef, type ObjectSet, type Rule, type RuleHit, envOf } from "../../rules/engine.ts";
import { TOKEN_DIR, VOLUME_ROOT } from "./render.ts";
import { FORBIDDEN_HOST_ROOTS, HOSTNAME_LABEL, hostPathProblem, overlaps, RUNNER_AUDIENCE, TOKEN_MAX_SECONDS, TOKEN_MIN_SECONDS } from "./values.ts";

const RUNNER: Rule["profiles"] = ["compass-runner"];
const RBAC_KINDS = ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"];

function runnerContainers(set: ObjectSet): ContainerRef[] {
  return set.containers().filter((c) => c.object.kind === "DaemonSet" || c.object.kind === "Pod");
}

/** One rule per requirement; each hit says what is wrong at which field. */
export const compassRunnerRules: Rule[] = [
  {
    id: "CR-01",
    summary: "The Runner object set: ServiceAccount, DaemonSet, admission policies and bindings, NetworkPolicy",
    fix: "apply the whole set together: ServiceAccount, DaemonSet, the CR-06 policies with bindings, and the NetworkPolicy",
    why: "The Runner is safe only as a whole: the DaemonSet without its NetworkPolicy can reach anything, without the admission policies anyone with pod create rights can exec into it or mint its token, and without its own ServiceAccount it runs as default.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const anchor = set.ofKind("DaemonSet")[0] ?? set.objects[0];
      if (!anchor) return [];
      const hits: RuleHit[] = [];
      for (const kind of ["ServiceAccount", "DaemonSet", "NetworkPolicy", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]) {
        if (set.ofKind(kind).length === 0) hits.push(hit(anchor, [], `the Runner set has no ${kind}`));
      }
      if (set.ofKind("DaemonSet").length > 1) hits.push(hit(set.ofKind("DaemonSet")[1], [], "more than one Runner DaemonSet"));
      return hits;
    },
  },
  {
    id: "CR-02",
    summary: "The Server address is an absolute https:// URL without userinfo, query or fragment",
    fix: "set COMPASS_SERVER_URL (values: server.address) to an https:// URL such as https://compass.example.com",
    why: "Seed 000: \"the Server address (an absolute https:// URL)\". The Runner presents its enrollment token to that address; over plain http, or to a URL with userinfo, query or fragment that the client may resolve differently, the token can leak or go to the wrong host.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      return runnerContainers(set).flatMap(({ object, container, containerPath }) => {
        const { env, index } = envOf(container, "COMPASS_SERVER_URL");
        if (!env) return [hit(object, [...containerPath, "env"], "COMPASS_SERVER_URL is not set")];
        const problem = env.value === undefined ? "is not a literal value" : httpsUrlProblem(env.value);
        return problem ? [hit(object, [...containerPath, "env", index, "value"], `COMPASS_SERVER_URL ${problem}`)] : [];
      });
    },
  },
  {
    id: "CR-03",
    summary: `The only credential is a projected token: ${TOKEN_DIR}/token, audience ${RUNNER_AUDIENCE}, ${TOKEN_MIN_SECONDS} to ${TOKEN_MAX_SECONDS} s`,
    fix: `mount a projected serviceAccountToken (audience ${RUNNER_AUDIENCE}, path token, expirationSeconds ${TOKEN_MIN_SECONDS}..${TOKEN_MAX_SECONDS}) read-only at ${TOKEN_DIR}`,
    why: "Seed 000: \"The DaemonSet uses a projected compass-runner ServiceAccount token at /var/run/secrets/compass/runner/token. Set tokenExpirationSeconds between 600 and 4294967296, and no higher than the matching Server cluster's maxTokenLifetime.\" The Server verifies the audience and the lifetime: a wrong audience or a lifetime above the cluster entry's maximum makes enrollment fail with an error that points elsewhere (attestation_invalid). Kubernetes itself refuses expirationSeconds below 600.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, path } of set.pods()) {
        const volumes = spec.volumes ?? [];
        const mount = (spec.containers ?? []).flatMap((c) => c.volumeMounts ?? []).find((m) => m.mountPath === TOKEN_DIR);
        const index = volumes.findIndex((v) => v.name === mount?.name);
        const sources = index < 0 ? [] : (volumes[index].projected?.sources ?? []);
        const tokenAt = sources.findIndex((s) => s.serviceAccountToken);
        if (!mount || tokenAt < 0) {
          hits.push(hit(object, [...path, "volumes"], `no projected ServiceAccount token is mounted at ${TOKEN_DIR}`));
          continue;
        }
        const token = sources[tokenAt].serviceAccountToken!;
        const at = [...path, "volumes", index, "projected", "sources", tokenAt, "serviceAccountToken"];
        if (token.audience !== RUNNER_AUDIENCE) hits.push(hit(object, [...at, "audience"], `audience is ${JSON.stringify(token.audience ?? "")}, not ${RUNNER_AUDIENCE}`));
        if (token.path !== "token") hits.push(hit(object, [...at, "path"], `path is ${JSON.stringify(token.path)}, so the token is not at ${TOKEN_DIR}/token`));
        const seconds = token.expirationSeconds;
        if (typeof seconds !== "number" || seconds < TOKEN_MIN_SECONDS || seconds > TOKEN_MAX_SECONDS) {
          hits.push(hit(object, [...at, "expirationSeconds"], `expirationSeconds ${seconds ?? "(unset)"} is outside ${TOKEN_MIN_SECONDS}..${TOKEN_MAX_SECONDS}`));
        }
        if (mount.readOnly !== true) hits.push(hit(object, [...path], `the token mount at ${TOKEN_DIR} is not readOnly`));
        volumes.forEach((volume, i) => {
          if (volume.secret && !volume.name.includes("ca")) hits.push(hit(object, [...path, "volumes", i, "secret"], `Secret volume ${volume.name} is a second credential`));
        });
      }
      return hits;
    },
  },
  {
    id: "CR-04",
    summary: "Namespace, ServiceAccount and audience equal the Server's cluster entry (checked from values; from manifests only the token audience)",
    fix: "set serverCluster.{namespace, serviceAccount, audience} to the Runner's namespace, ServiceAccount and compass-runner",
    why: "Seed 000: \"The namespace, ServiceAccount, and audience (compass-runner) must match that Server cluster entry.\" The Server accepts a token only from the ServiceAccount and namespace it was told about; a Runner under another ServiceAccount (or default) never enrolls. From manifests alone only the pod's own ServiceAccount can be compared; the values check compares the Server entry.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      // The Server's cluster entry is not in the Runner's manifests; the
      // values check compares it. Here: the pod must use the set's own SA.
      const names = new Set(set.ofKind("ServiceAccount").map((sa) => `${sa.metadata.namespace}/${sa.metadata.name}`));
      if (names.size === 0) return [];
      return set
        .pods()
        .filter(({ object, spec }) => !names.has(`${object.metadata.namespace}/${spec.serviceAccountName ?? "default"}`))
        .map(({ object, spec, path }) => hit(object, [...path, "serviceAccountName"], `the pod runs as ServiceAccount ${spec.serviceAccountName ?? "default"}, not the Runner's own`));
    },
  },
  {
    id: "CR-05",
    summary: "The Runner ServiceAccount has no RBAC binding and no API token",
    fix: "remove every Role, ClusterRole and binding for the Runner; set automountServiceAccountToken: false on the ServiceAccount and the pod",
    why: "Seed 000: \"The ServiceAccount has no RBAC binding.\" The Runner never calls the Kubernetes API; any binding is power an attacker who breaks out of a microVM would inherit. The automatically mounted API token would be an unused credential on disk (inferred).",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = set.objects.filter((o) => RBAC_KINDS.includes(o.kind)).map((o) => hit(o, ["kind"], `${o.kind} in the Runner set: the Runner needs no API access`));
      for (const sa of set.ofKind("ServiceAccount")) {
        if (sa.automountServiceAccountToken !== false) hits.push(hit(sa, ["automountServiceAccountToken"], "automountServiceAccountToken is not false"));
      }
      for (const { object, spec, path } of set.pods()) {
        if (spec.automountServiceAccountToken !== false) hits.push(hit(object, [...path, "automountServiceAccountToken"], "automountServiceAccountToken is not false on the pod"));
      }
      return hits;
    },
  },
  {
    id: "CR-06",
    summary: "Admission policies deny exec/attach/ephemeral containers, foreign pod creation, DaemonSet changes and token requests to all but the allowed identities",
    fix: "apply the four ValidatingAdmissionPolicies (failurePolicy: Fail) with bindings (validationActions: [Deny]) that rigging renders",
    why: "Seed 000: the admission policy \"denies exec, attach, and ephemeral containers on Runner pods except to admission.breakGlassGroups (default system:masters)\", and only admission.controllers may create Runner pods and admission.deployers change the DaemonSet. The namespace runs privileged (G-10), so these policies are the guard rails: without them anyone who may exec or create pods there reaches KVM and the host trees, and anyone who may request tokens for the Runner ServiceAccount can enroll as a Runner (CR-06d, inferred).",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const policies = set.ofKind("ValidatingAdmissionPolicy");
      const bound = new Set(set.ofKind("ValidatingAdmissionPolicyBinding").filter((b) => (dig(b, ["spec", "validationActions"]) as string[] | undefined)?.includes("Deny")).map((b) => dig(b, ["spec", "policyName"])));
      const hits: RuleHit[] = [];
      const anchor = set.ofKind("DaemonSet")[0] ?? set.objects[0];
      const covers = (resource: string, operation: string) =>
        policies.some((p) =>
          ((dig(p, ["spec", "matchConstraints", "resourceRules"]) as { resources?: string[]; operations?: string[] }[] | undefined) ?? []).some(
            (r) => (r.resources ?? []).includes(resource) && ((r.operations ?? []).includes(operation) || (r.operations ?? []).includes("*")),
          ),
        );
      for (const [resource, operation, what] of [
        ["pods/exec", "CONNECT", "exec (a)"],
        ["pods/attach", "CONNECT", "attach (a)"],
        ["pods/ephemeralcontainers", "UPDATE", "ephemeral containers (a)"],
        ["pods", "CREATE", "pod creation (b)"],
        ["daemonsets", "CREATE", "DaemonSet creation (c)"],
        ["daemonsets", "UPDATE", "DaemonSet updates (c)"],
        ["daemonsets", "DELETE", "DaemonSet deletion (c)"],
        ["serviceaccounts/token", "CREATE", "token requests (d)"],
      ] as const) {
        if (anchor && !covers(resource, operation)) hits.push(hit(anchor, [], `no admission policy guards ${what}: ${operation} on ${resource}`));
      }
      policies.forEach((p) => {
        if (dig(p, ["spec", "failurePolicy"]) !== "Fail") hits.push(hit(p, ["spec", "failurePolicy"], "failurePolicy is not Fail"));
        if (!bound.has(p.metadata.name)) hits.push(hit(p, ["metadata", "name"], "no binding with validationActions [Deny] for this policy"));
      });
      return hits;
    },
  },
  {
    id: "CR-07",
    summary: "The DaemonSet pins exactly one node with kubernetes.io/hostname",
    fix: `set nodeSelector ${HOSTNAME_LABEL}: <node>; one Runner node until the multi-Runner hub exists`,
    why: "Seed 000: \"Rollout beyond one node waits for the multi-Runner hub.\" Seed 001 (D1): one Runner per Server. A DaemonSet without a hostname selector starts a Runner on every matching node, and the Server cannot yet coordinate more than one.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      return set
        .pods()
        .filter(({ spec }) => !spec.nodeSelector?.[HOSTNAME_LABEL])
        .map(({ object, path }) => hit(object, [...path, "nodeSelector"], `nodeSelector does not pin one node with ${HOSTNAME_LABEL}`));
    },
  },
  {
    id: "CR-08",
    summary: "KVM comes from a device plugin: request and limit 1 of the KVM resource; no hostPath under /dev",
    fix: "request and limit 1 of the device plugin's resource (kvmResourceName) and remove any /dev hostPath",
    why: "Seed 000: \"Install an operator-selected, digest-pinned device plugin that advertises the configured kvmResourceName for /dev/kvm. The plugin injects the device and its cgroup device allowance; no /dev hostPath is used.\" A /dev hostPath gives no cgroup device allowance under a user namespace and exposes more of the host than KVM.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, path } of set.pods()) {
        (spec.volumes ?? []).forEach((volume, index) => {
          const p = volume.hostPath?.path;
          if (p !== undefined && (p === "/dev" || p.startsWith("/dev/"))) hits.push(hit(object, [...path, "volumes", index, "hostPath", "path"], `hostPath ${p} is under /dev`));
        });
      }
      for (const { object, container, containerPath } of runnerContainers(set)) {
        const requests = (container.resources?.requests ?? {}) as Record<string, unknown>;
        const limits = (container.resources?.limits ?? {}) as Record<string, unknown>;
        const kvm = Object.keys(limits).find((name) => name.includes("/") && /kvm/i.test(name));
        if (!kvm) hits.push(hit(object, [...containerPath, "resources", "limits"], "no KVM device-plugin resource is limited"));
        else {
          if (String(limits[kvm]) !== "1") hits.push(hit(object, [...containerPath, "resources", "limits", kvm], `limits ${kvm} is ${limits[kvm]}, not 1`));
          if (requests[kvm] !== undefined && String(requests[kvm]) !== "1") hits.push(hit(object, [...containerPath, "resources", "requests", kvm], `requests ${kvm} is ${requests[kvm]}, not 1`));
        }
      }
      return hits;
    },
  },
  {
    id: "CR-09",
    summary: "The pod runs in a user namespace: hostUsers: false",
    fix: "set hostUsers: false in the pod spec",
    why: "The Runner must create namespaces and mount filesystems for its microVMs; hostUsers: false lets it do so as root inside a user namespace that maps to an unprivileged range on the host. Without it those calls need real host privileges, or they fail.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      return set
        .pods()
        .filter(({ spec }) => spec.hostUsers !== false)
        .map(({ object, path }) => hit(object, [...path, "hostUsers"], "hostUsers is not false"));
    },
  },
  {
    id: "CR-10",
    summary: "seccomp is Localhost with a relative .json profile path without ..",
    fix: "set seccompProfile {type: Localhost, localhostProfile: compass/compass-runner.json} and stage seccomp/compass-runner.json there",
    why: "Seed 000: \"Stage seccomp/compass-runner.json at the kubelet seccomp root under the configured seccompProfilePath\". The container runtime's default profile blocks clone, unshare and mount that a microVM launcher needs; Unconfined would allow everything. The path is relative to the kubelet's seccomp root, so an absolute path or .. never resolves.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, container, containerPath, path } of runnerContainers(set)) {
        const fromContainer = container.securityContext?.seccompProfile;
        const profile = fromContainer ?? spec.securityContext?.seccompProfile;
        const at = fromContainer ? [...containerPath, "securityContext", "seccompProfile"] : [...path, "securityContext", "seccompProfile"];
        if (profile?.type !== "Localhost") {
          hits.push(hit(object, [...at, "type"], `seccomp type is ${profile?.type ?? "unset"}, not Localhost`));
          continue;
        }
        const file = profile.localhostProfile ?? "";
        if (file.startsWith("/") || file.split("/").includes("..") || !file.endsWith(".json")) {
          hits.push(hit(object, [...at, "localhostProfile"], `localhostProfile ${JSON.stringify(file)} is not a relative .json path without ..`));
        }
      }
      return hits;
    },
  },
  {
    id: "CR-11",
    summary: "Two distinct, non-overlapping host trees outside system paths; volume root on the quota subdirectory; uid and gid 65532",
    fix: `mount the session and runtime host trees (absolute, distinct, outside ${FORBIDDEN_HOST_ROOTS.join(", ")}), set COMPASS_MICROVM_VOLUME_ROOT=${VOLUME_ROOT}, run as 65532:65532`,
    why: "Seed 000: \"Provide the session-volume host tree on a filesystem configured for project quotas. Provide the separate runtime host tree for stale-session reaping. Own both by uid and gid 65532: user-namespaced pods mount them idmapped.\" Seed 001 (P8): pointing COMPASS_MICROVM_VOLUME_ROOT at the mount point itself makes the quota preflight (readVolumeQuota) fail on every Runner; it must be the volumes subdirectory. Overlapping trees, or trees under /dev, /proc, /sys, /etc or /var/run/secrets, hand the Runner host state it must not touch.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, path } of set.pods()) {
        const trees = (spec.volumes ?? []).map((v, index) => ({ p: v.hostPath?.path, index })).filter((t): t is { p: string; index: number } => t.p !== undefined);
        for (const tree of trees) {
          const problem = hostPathProblem(tree.p);
          if (problem && !tree.p.startsWith("/dev")) hits.push(hit(object, [...path, "volumes", tree.index, "hostPath", "path"], `hostPath ${tree.p} ${problem}`));
        }
        trees.forEach((a, i) =>
          trees.slice(i + 1).forEach((b) => {
            if (overlaps(a.p, b.p)) hits.push(hit(object, [...path, "volumes", b.index, "hostPath", "path"], `hostPath ${b.p} overlaps ${a.p}`));
          }),
        );
        if (trees.length !== 2) hits.push(hit(object, [...path, "volumes"], `${trees.length} hostPath volumes; the Runner mounts exactly two (sessions and runtime)`));
        const uid = spec.securityContext?.runAsUser;
        const gid = spec.securityContext?.runAsGroup;
        if (uid !== 65532 || gid !== 65532) hits.push(hit(object, [...path, "securityContext"], `runs as ${uid ?? "?"}:${gid ?? "?"}, not 65532:65532`));
      }
      for (const { object, container, containerPath } of runnerContainers(set)) {
        const { env, index } = envOf(container, "COMPASS_MICROVM_VOLUME_ROOT");
        if (env?.value !== VOLUME_ROOT) {
          hits.push(hit(object, env ? [...containerPath, "env", index, "value"] : [...containerPath, "env"], `COMPASS_MICROVM_VOLUME_ROOT is ${env?.value ?? "unset"}, not the quota subdirectory ${VOLUME_ROOT} (P8)`));
        }
      }
      return hits;
    },
  },
  {
    id: "CR-12",
    summary: "nodeSelector keys and tolerations are valid (label key syntax, operator and effect enums)",
    fix: "use label keys as on the node; tolerations take operator Exists or Equal and effect NoSchedule, PreferNoSchedule or NoExecute",
    why: "Seed 000: \"Configure node selectors, taints ...\". A toleration with a misspelled operator or effect, or a selector key that is not a label key, is rejected by the API server or silently never matches, and the Runner pod stays Pending.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, path } of set.pods()) {
        for (const key of Object.keys(spec.nodeSelector ?? {})) if (!isLabelKey(key)) hits.push(hit(object, [...path, "nodeSelector", key], `nodeSelector key ${JSON.stringify(key)} is not a label key`));
        (spec.tolerations ?? []).forEach((t, index) => {
          const at = [...path, "tolerations", index];
          if (t.operator !== undefined && !["Exists", "Equal"].includes(t.operator)) hits.push(hit(object, [...at, "operator"], `operator ${JSON.stringify(t.operator)} is not Exists or Equal`));
          if (t.effect !== undefined && !["", "NoSchedule", "PreferNoSchedule", "NoExecute"].includes(t.effect)) hits.push(hit(object, [...at, "effect"], `effect ${JSON.stringify(t.effect)} is not NoSchedule, PreferNoSchedule or NoExecute`));
          if (t.operator === "Exists" && t.value) hits.push(hit(object, [...at, "value"], "value is set with operator Exists"));
          if (t.key !== undefined && t.key !== "" && !isLabelKey(t.key)) hits.push(hit(object, [...at, "key"], `key ${JSON.stringify(t.key)} is not a taint key`));
        });
      }
      return hits;
    },
  },
  {
    id: "CR-13",
    summary: "amd64 only until an arm64 KVM boot passes (DL-577): the pod selects kubernetes.io/arch: amd64",
    fix: "set nodeSelector kubernetes.io/arch: amd64",
    why: "Seed 001 (DL-577): \"the Runner stays amd64-only until an arm64 KVM boot passes\". On an arm64 node the image may run but the microVM guest does not boot.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      return set
        .pods()
        .filter(({ spec }) => spec.nodeSelector?.["kubernetes.io/arch"] !== "amd64")
        .map(({ object, path }) => hit(object, [...path, "nodeSelector", "kubernetes.io/arch"], `kubernetes.io/arch is ${spec(object)}, not amd64`));
      function spec(object: K8sObject) {
        return JSON.stringify(dig(object, ["spec", "template", "spec", "nodeSelector", "kubernetes.io/arch"]) ?? "unset");
      }
    },
  },
  {
    id: "CR-14",
    summary: "The Server CA parses as PEM certificates and --server-name is a DNS name",
    fix: "give the Server CA as PEM certificates in a ConfigMap or Secret, and --server-name as a DNS name such as compass.example.com",
    why: "Seed 001 (D7, P9): the Runner verifies the Server with serverCA, and --server-name \"sets tls.Config.ServerName ... This lets a Runner dial the in-cluster Service and still verify a certificate that names only the public host.\" A CA that does not parse, or a server name that is not a DNS name, makes every TLS handshake fail.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const cm of set.ofKind("ConfigMap")) {
        const pem = (cm.data as Record<string, string> | undefined)?.["ca.crt"];
        if (pem === undefined) continue;
        const { blocks } = splitPem(pem, "CERTIFICATE");
        const bad = blocks.length === 0 || blocks.some((b) => !parses(b));
        if (bad) hits.push(hit(cm, ["data", "ca.crt"], "ca.crt does not parse as PEM certificates"));
      }
      for (const { object, container, containerPath } of runnerContainers(set)) {
        const args = container.args ?? [];
        const at = args.indexOf("--server-name");
        if (at >= 0 && !DNS1123_SUBDOMAIN.test(args[at + 1] ?? "")) hits.push(hit(object, [...containerPath, "args", at + 1], `--server-name ${JSON.stringify(args[at + 1] ?? "")} is not a DNS name`));
      }
      return hits;
    },
  },
  {
    id: "CR-15",
    summary: "NetworkPolicy: no ingress; egress only to DNS, the Server and egressAllow",
    fix: "select the Runner pods with a NetworkPolicy listing Ingress and Egress with no ingress rules and egress rules that each name a destination",
    why: "Seed 001 (D7): Runner egressAllow. The Runner executes untrusted workloads; a pod that accepts connections or reaches any destination turns one escape into access to the cluster network. Only DNS, the Server and the listed destinations are needed.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      const policies = set.ofKind("NetworkPolicy");
      for (const policy of policies) {
        const types = (dig(policy, ["spec", "policyTypes"]) as string[] | undefined) ?? [];
        for (const t of ["Ingress", "Egress"]) if (!types.includes(t)) hits.push(hit(policy, ["spec", "policyTypes"], `policyTypes does not list ${t}`));
        const ingress = (dig(policy, ["spec", "ingress"]) as unknown[] | undefined) ?? [];
        if (ingress.length > 0) hits.push(hit(policy, ["spec", "ingress"], `${ingress.length} ingress rule(s); the Runner accepts no connections`));
        const egress = (dig(policy, ["spec", "egress"]) as { to?: { ipBlock?: { cidr?: string } }[] }[] | undefined) ?? [];
        egress.forEach((rule, index) => {
          if (!rule.to || rule.to.length === 0) hits.push(hit(policy, ["spec", "egress", index], "an egress rule without `to` allows every destination"));
          (rule.to ?? []).forEach((peer, j) => {
            if (peer.ipBlock?.cidr === "0.0.0.0/0" || peer.ipBlock?.cidr === "::/0") hits.push(hit(policy, ["spec", "egress", index, "to", j, "ipBlock", "cidr"], `egress to ${peer.ipBlock.cidr} allows every destination`));
          });
        });
      }
      return hits;
    },
  },
  {
    id: "CR-16",
    summary: "Metrics are pushed over OTLP: no container port, no Service, no scrape annotations",
    fix: "remove ports, Services and prometheus.io annotations; set OTEL_EXPORTER_OTLP_ENDPOINT to push metrics",
    why: "Seed 000: \"Metrics: set OTEL_EXPORTER_OTLP_ENDPOINT to push them. The Runner serves no scrape endpoint.\" A port, Service or scrape annotation advertises an endpoint that does not exist and opens a hole in the no-ingress policy (CR-15).",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = set.ofKind("Service").map((s) => hit(s, ["kind"], "a Service for the Runner, which serves nothing"));
      for (const { object, container, containerPath } of runnerContainers(set)) {
        if ((container.ports ?? []).length > 0) hits.push(hit(object, [...containerPath, "ports"], "the Runner container declares ports"));
      }
      for (const object of set.objects) {
        for (const [where, annotations] of [
          [["metadata", "annotations"], object.metadata.annotations],
          [["spec", "template", "metadata", "annotations"], dig(object, ["spec", "template", "metadata", "annotations"])],
        ] as const) {
          for (const key of Object.keys((annotations as Record<string, string> | undefined) ?? {})) {
            if (key.startsWith("prometheus.io/")) hits.push(hit(object, [...where, key], `scrape annotation ${key}`));
          }
        }
      }
      return hits;
    },
  },
  {
    id: "CR-17",
    summary: "The Server assigns the Runner ID at enrollment: no Runner ID in manifests",
    fix: "remove the Runner ID; the Server assigns it when the Runner enrolls",
    why: "Seed 000: \"The Server assigns each Runner ID during enrollment.\" A Runner ID set in the manifests collides with or overrides the Server's assignment.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, container, containerPath } of runnerContainers(set)) {
        (container.env ?? []).forEach((env, index) => {
          if (/RUNNER_ID$/.test(env.name)) hits.push(hit(object, [...containerPath, "env", index, "name"], `${env.name} sets a Runner ID`));
        });
        (container.args ?? []).forEach((arg, index) => {
          if (/^--runner-id(=|$)/.test(arg)) hits.push(hit(object, [...containerPath, "args", index], "--runner-id sets a Runner ID"));
        });
      }
      return hits;
    },
  },
];

function parses(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}
