// Rules of the Compass Server (CS-), judged from manifests alone. The
// bundled NATS objects (app.kubernetes.io/name: compass-nats) belong to the
// same profile and meet the G- rules too.
import type { Container, PodSpec, Volume } from "kubernetes-types/core/v1";
import type { NetworkPolicy } from "kubernetes-types/networking/v1";
import { secretValueProblem } from "../../core/inline-secrets.ts";
import { parseImage } from "../../core/image.ts";
import type { K8sObject } from "../../core/objects.ts";
import { dig, hit, type ContainerRef, type ObjectSet, type PodRef, type Rule, type RuleHit } from "../../rules/engine.ts";
import { RUNNER_AUDIENCE, TOKEN_MAX_SECONDS, TOKEN_MIN_SECONDS } from "../compass-runner/values.ts";
import { parseServerConfig } from "./config.ts";
import { DATABASE_URL_ENV, NATS_APP, NATS_PASSWORD_ENV, NATS_PORT, SERVER_APP, SERVER_SERVICE_PORT, SERVER_TLS_PORT, SERVER_UID } from "./ports.ts";
import { ARCH_LABELS } from "./values.ts";

const SERVER: Rule["profiles"] = ["compass-server"];
const WORKLOAD_KINDS = ["Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob"];

const appOf = (o: K8sObject) => o.metadata?.labels?.["app.kubernetes.io/name"];
const isServer = (o: K8sObject) => appOf(o) === SERVER_APP;
const isNats = (o: K8sObject) => appOf(o) === NATS_APP;

function serverPods(set: ObjectSet): PodRef[] {
  return set.pods().filter((p) => isServer(p.object));
}

function serverContainers(set: ObjectSet): ContainerRef[] {
  return set.containers().filter((c) => isServer(c.object) && c.containerPath.includes("containers"));
}

/** The value of `--flag value` or `--flag=value`, with the index of the value. */
export function flagValue(args: readonly string[], flag: string): { value?: string; index: number } {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === flag) return { value: args[i + 1], index: i + 1 };
    if (args[i].startsWith(`${flag}=`)) return { value: args[i].slice(flag.length + 1), index: i };
  }
  return { index: -1 };
}

/** The volume mounted over `file` in `container`, with its index in the pod's volumes. */
function volumeOver(spec: PodSpec, container: Container, file: string): { volume?: Volume; index: number; rest: string } {
  const mounts = (container.volumeMounts ?? []).filter((m) => file.startsWith(m.mountPath.replace(/\/?$/, "/")));
  const mount = mounts.sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  if (!mount) return { index: -1, rest: file };
  const index = (spec.volumes ?? []).findIndex((v) => v.name === mount.name);
  return { volume: index < 0 ? undefined : spec.volumes![index], index, rest: file.slice(mount.mountPath.replace(/\/?$/, "/").length) };
}

function isSecretVolume(volume: Volume | undefined): boolean {
  if (!volume) return false;
  return volume.secret !== undefined || (volume.projected?.sources ?? []).some((s) => s.secret !== undefined);
}

/** The mode the kubelet gives `file` inside a Secret volume (0644 when none is set). */
function fileMode(volume: Volume, file: string): number {
  if (volume.secret) return volume.secret.items?.find((i) => i.path === file)?.mode ?? volume.secret.defaultMode ?? 0o644;
  const item = (volume.projected?.sources ?? []).flatMap((s) => s.secret?.items ?? []).find((i) => i.path === file);
  return item?.mode ?? volume.projected?.defaultMode ?? 0o644;
}

/** Checks that a file flag names a file of a Secret volume; returns its volume. */
function secretFileFlag(ref: ContainerRef, flag: string, what: string, hits: RuleHit[]): { volume: Volume; rest: string; index: number } | undefined {
  const { object, container, containerPath, spec } = ref;
  const { value, index } = flagValue(container.args ?? [], flag);
  if (value === undefined) {
    hits.push(hit(object, [...containerPath, "args"], `no ${flag} argument: ${what} is not read from a file`));
    return undefined;
  }
  const found = volumeOver(spec, container, value);
  if (!isSecretVolume(found.volume)) {
    hits.push(hit(object, [...containerPath, "args", index], `${flag} ${value} is not a file of a Secret volume`));
    return undefined;
  }
  return { volume: found.volume!, rest: found.rest, index: found.index };
}

function envNamed(container: Container, test: (name: string) => boolean) {
  return (container.env ?? []).map((env, index) => ({ env, index })).filter(({ env }) => test(env.name));
}

function fromSecret(container: Container, name: string): "missing" | "inline" | "secret" {
  const env = (container.env ?? []).find((e) => e.name === name);
  if (!env) return "missing";
  return env.valueFrom?.secretKeyRef ? "secret" : "inline";
}

function selectsPods(policy: K8sObject, podLabels: Record<string, string>): boolean {
  const matchLabels = (dig(policy, ["spec", "podSelector", "matchLabels"]) ?? {}) as Record<string, string>;
  return Object.entries(matchLabels).every(([k, v]) => podLabels[k] === v);
}

function podLabels(pod: PodRef): Record<string, string> {
  return pod.object.kind === "Pod" ? (pod.object.metadata.labels ?? {}) : ((dig(pod.object, ["spec", "template", "metadata", "labels"]) ?? {}) as Record<string, string>);
}

// Blanks within one line only: `^\s*` let every line start read on through
// all the empty lines after it, which made the scan quadratic.
const SECRET_CONFIG_LINE = /^[ \t]*"?(password|passwd|secret|token|masterKey|adminToken|privateKey|webhookSecret|databaseURL|databaseUrl)"?[ \t]*[:=][ \t]*("?)([^\s"#]+)\2/gim;

/**
 * Whether a NATS configuration sets a password inside `authorization { }`.
 * Each block is read once, up to its first `}`: the regex this replaces
 * read from every `authorization {` to the end, which was quadratic.
 */
function natsConfigHasPassword(text: string): boolean {
  const opening = /authorization\s*\{/g;
  for (let match = opening.exec(text); match; match = opening.exec(text)) {
    const start = match.index + match[0].length;
    const end = text.indexOf("}", start);
    if (/password\s*[:=]/.test(text.slice(start, end < 0 ? text.length : end))) return true;
    if (end < 0) return false;
    opening.lastIndex = end + 1;
  }
  return false;
}

export const compassServerRules: Rule[] = [
  {
    id: "CS-01",
    summary: "One Server pod: a Deployment with replicas: 1 and strategy Recreate",
    fix: "run the Server as one Deployment with replicas: 1 and strategy: {type: Recreate}",
    why: "D1: one Server per Runner; a rolling update or a second replica would run two Servers against one database and one Runner",
    severity: "error",
    profiles: SERVER,
    check(set) {
      const hits: RuleHit[] = [];
      const workloads = set.objects.filter((o) => isServer(o) && WORKLOAD_KINDS.includes(o.kind));
      for (const o of workloads) if (o.kind !== "Deployment") hits.push(hit(o, ["kind"], `the Server runs as a ${o.kind}, not a Deployment`));
      const deployments = workloads.filter((o) => o.kind === "Deployment");
      deployments.slice(1).forEach((d) => hits.push(hit(d, ["metadata", "name"], "a second Server Deployment")));
      for (const d of deployments) {
        const replicas = dig(d, ["spec", "replicas"]);
        if (replicas !== undefined && replicas !== 1) hits.push(hit(d, ["spec", "replicas"], `replicas is ${JSON.stringify(replicas)}, not 1`));
        const strategy = dig(d, ["spec", "strategy", "type"]);
        if (strategy !== "Recreate") hits.push(hit(d, ["spec", "strategy", "type"], `strategy is ${strategy === undefined ? "unset (RollingUpdate)" : JSON.stringify(strategy)}, not Recreate`));
      }
      for (const hpa of set.ofKind("HorizontalPodAutoscaler")) hits.push(hit(hpa, ["kind"], "an autoscaler would run more than one Server"));
      return hits;
    },
  },
  {
    id: "CS-02",
    summary: "The Server runs as uid and gid 65532 (non-root, read-only root: G-06; by digest: G-05)",
    fix: `set runAsUser: ${SERVER_UID} and runAsGroup: ${SERVER_UID} on the Server pod`,
    why: "D2: the Server image is a nix closure on distroless, built to run as the nonroot user 65532",
    severity: "error",
    profiles: SERVER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, container, containerPath } of serverContainers(set)) {
        const uid = container.securityContext?.runAsUser ?? spec.securityContext?.runAsUser;
        const gid = container.securityContext?.runAsGroup ?? spec.securityContext?.runAsGroup;
        if (uid !== SERVER_UID || gid !== SERVER_UID) hits.push(hit(object, [...containerPath, "securityContext"], `the Server runs as ${uid ?? "?"}:${gid ?? "?"}, not ${SERVER_UID}:${SERVER_UID}`));
      }
      return hits;
    },
  },
  {
    id: "CS-03",
    summary: "Postgres is user-provided: no database workload, no volume claim, no init container; the URL comes from a Secret",
    fix: `remove any Postgres object and init container; feed ${DATABASE_URL_ENV} from a secretKeyRef; the Server migrates at boot`,
    why: "D3: Postgres is user-provided and never rendered; migrations run at boot, so nothing runs before the Server",
    severity: "error",
    profiles: SERVER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const o of set.objects) {
        if (o.kind === "StatefulSet" || o.kind === "PersistentVolumeClaim") hits.push(hit(o, ["kind"], `a ${o.kind} in the Server set: Postgres is user-provided, and the Server keeps no volume`));
      }
      for (const { object, container, containerPath } of set.containers()) {
        const parsed = parseImage(String(container.image ?? ""));
        const repository = typeof parsed === "string" ? String(container.image ?? "") : parsed.repository;
        if (/(^|\/)(postgres|postgresql|postgis|pgvector)([:@/]|$)/.test(repository)) hits.push(hit(object, [...containerPath, "image"], "a Postgres container: Postgres is user-provided and never rendered"));
      }
      for (const { object, spec, path } of serverPods(set)) {
        if ((spec.initContainers ?? []).length > 0) hits.push(hit(object, [...path, "initContainers"], "the Server pod has init containers; it migrates at boot"));
      }
      for (const { object, container, containerPath } of serverContainers(set)) {
        const state = fromSecret(container, DATABASE_URL_ENV);
        if (state === "missing") hits.push(hit(object, [...containerPath, "env"], `${DATABASE_URL_ENV} is not set from a Secret`));
        if (state === "inline") hits.push(hit(object, [...containerPath, "env", (container.env ?? []).findIndex((e) => e.name === DATABASE_URL_ENV)], `${DATABASE_URL_ENV} is not a secretKeyRef`));
      }
      return hits;
    },
  },
  {
    id: "CS-04",
    summary: "Every Server secret is referenced by Secret name: none is written into a ConfigMap, an argument or an environment value",
    fix: "move the secret into a Secret and reference it by name: a secretKeyRef, or a file of a Secret volume named by its path",
    why: "D4: secrets by name; a connection string with a password or a private key in a ConfigMap is a secret in the manifests",
    severity: "error",
    profiles: SERVER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const cm of set.ofKind("ConfigMap")) {
        for (const [key, text] of Object.entries((cm.data ?? {}) as Record<string, string>)) {
          const problem = secretValueProblem(text);
          if (problem) {
            hits.push(hit(cm, ["data", key], `${key} ${problem}`));
            continue;
          }
          for (const match of text.matchAll(SECRET_CONFIG_LINE)) {
            if (!match[3].startsWith("$")) hits.push(hit(cm, ["data", key], `${key} sets ${match[1]} to an inline value`));
          }
        }
      }
      for (const { object, container, containerPath } of set.containers()) {
        (container.env ?? []).forEach((env, index) => {
          const problem = env.value === undefined ? undefined : secretValueProblem(env.value);
          if (problem) hits.push(hit(object, [...containerPath, "env", index, "value"], `${env.name} ${problem}`));
        });
        (container.args ?? []).forEach((arg, index) => {
          const problem = secretValueProblem(arg);
          if (problem) hits.push(hit(object, [...containerPath, "args", index], `argument ${index} ${problem}`));
        });
      }
      return hits;
    },
  },
  {
    id: "CS-05",
    summary: "The master key is read at boot from a file of a Secret volume (--master-key-file), never from an environment variable",
    fix: "mount the master key's Secret as a volume (defaultMode: 0400) and pass --master-key-file <path>; remove any master key variable",
    why: "D4: a boot-only master key; an environment variable stays readable in the process for its whole life (inferred)",
    severity: "error",
    profiles: SERVER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set)) {
        for (const { env, index } of envNamed(ref.container, (n) => /MASTER_?KEY/i.test(n) && !/_(FILE|PATH)$/i.test(n))) {
          hits.push(hit(ref.object, [...ref.containerPath, "env", index], `${env.name} passes the master key through the environment`));
        }
        secretFileFlag(ref, "--master-key-file", "the master key", hits);
      }
      return hits;
    },
  },
  {
    id: "CS-06",
    summary: "The admin token is a 0400 file of a Secret volume, passed as --admin-token-file",
    fix: "mount the admin token's Secret with defaultMode: 0400 (256) and pass --admin-token-file <path>; remove any admin token variable",
    why: "P4: the Server reads its admin token from a private regular file of a Secret volume",
    severity: "error",
    profiles: SERVER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set)) {
        for (const { env, index } of envNamed(ref.container, (n) => /ADMIN_?TOKEN/i.test(n) && !/_(FILE|PATH)$/i.test(n))) {
          hits.push(hit(ref.object, [...ref.containerPath, "env", index], `${env.name} passes the admin token through the environment`));
        }
        const found = secretFileFlag(ref, "--admin-token-file", "the admin token", hits);
        if (!found) continue;
        const mode = fileMode(found.volume, found.rest);
        if ((mode & 0o077) !== 0) hits.push(hit(ref.object, [...ref.path, "volumes", found.index], `the admin token file has mode 0${mode.toString(8)}, not private (0400)`));
      }
      return hits;
    },
  },
  {
    id: "CS-07",
    summary: "NATS uses password auth, the password from a Secret; a bundled NATS is one pod reachable only from the Server",
    fix: `feed ${NATS_PASSWORD_ENV} from a secretKeyRef; for a bundled NATS: one replica, authorization with a password from a Secret, and a NetworkPolicy admitting only the Server pods on ${NATS_PORT}`,
    why: "D5: NATS with password auth; an open NATS lets anyone in the cluster speak for the Server",
    severity: "error",
    profiles: SERVER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, container, containerPath } of serverContainers(set)) {
        const state = fromSecret(container, NATS_PASSWORD_ENV);
        if (state !== "secret") hits.push(hit(object, [...containerPath, "env"], `${NATS_PASSWORD_ENV} is ${state === "missing" ? "not set" : "not a secretKeyRef"}`));
      }
      const natsPods = set.pods().filter((p) => isNats(p.object));
      for (const pod of natsPods) {
        const replicas = dig(pod.object, ["spec", "replicas"]);
        if (replicas !== undefined && replicas !== 1) hits.push(hit(pod.object, ["spec", "replicas"], `the bundled NATS has ${JSON.stringify(replicas)} replicas, not 1`));
        (pod.spec.containers ?? []).forEach((container, i) => {
          const { value, index } = flagValue(container.args ?? [], "--pass");
          if (value !== undefined && !/^\$\(\w+\)$/.test(value)) hits.push(hit(pod.object, [...pod.path, "containers", i, "args", index], "--pass carries the NATS password inline"));
        });
        const configured = set.ofKind("ConfigMap").some((cm) => isNats(cm) && Object.values((cm.data ?? {}) as Record<string, string>).some(natsConfigHasPassword));
        const byFlag = (pod.spec.containers ?? []).some((c) => flagValue(c.args ?? [], "--pass").value !== undefined);
        if (!configured && !byFlag) hits.push(hit(pod.object, pod.path, "the bundled NATS has no password authorization"));
        const policies = set.ofKind("NetworkPolicy").filter((p) => selectsPods(p, podLabels(pod)) && ((dig(p, ["spec", "policyTypes"]) as string[] | undefined) ?? []).includes("Ingress"));
        if (policies.length === 0) hits.push(hit(pod.object, ["metadata", "name"], "no NetworkPolicy limits who reaches the bundled NATS"));
        for (const policy of policies) {
          ((policy as NetworkPolicy).spec?.ingress ?? []).forEach((rule, r) => {
            const from = rule.from ?? [];
            const onlyServer = from.length > 0 && from.every((peer) => !peer.ipBlock && !peer.namespaceSelector && peer.podSelector?.matchLabels?.["app.kubernetes.io/name"] === SERVER_APP);
            if (!onlyServer) hits.push(hit(policy, ["spec", "ingress", r, "from"], "admits clients other than the Server pods"));
          });
        }
      }
      return hits;
    },
  },
  {
    id: "CS-08",
    summary: `The Server terminates TLS: its kubernetes.io/tls Secret is mounted, it listens on ${SERVER_TLS_PORT}, its Service maps ${SERVER_SERVICE_PORT} to it, and no Ingress sits in front`,
    fix: `mount the TLS Secret and pass --tls-cert-file and --tls-key-file; declare containerPort ${SERVER_TLS_PORT}; expose Service port ${SERVER_SERVICE_PORT} with targetPort ${SERVER_TLS_PORT}; remove any Ingress`,
    why: "D6: the Server terminates TLS; a proxy that decrypts in front would see Runner tokens and admin requests",
    severity: "error",
    profiles: SERVER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const ingress of set.ofKind("Ingress")) hits.push(hit(ingress, ["kind"], "an Ingress in front of the Server terminates TLS"));
      const containers = serverContainers(set);
      for (const ref of containers) {
        secretFileFlag(ref, "--tls-cert-file", "the certificate", hits);
        secretFileFlag(ref, "--tls-key-file", "the private key", hits);
        if (!(ref.container.ports ?? []).some((p) => p.containerPort === SERVER_TLS_PORT)) hits.push(hit(ref.object, [...ref.containerPath, "ports"], `the Server declares no containerPort ${SERVER_TLS_PORT}`));
      }
      const named = new Map(containers.flatMap((c) => (c.container.ports ?? []).filter((p) => p.name).map((p) => [p.name!, p.containerPort] as const)));
      const services = set.ofKind("Service").filter(isServer);
      if (containers.length > 0 && services.length === 0) hits.push(hit(containers[0].object, ["metadata", "name"], `no Service exposes the Server on ${SERVER_SERVICE_PORT}`));
      for (const service of services) {
        const ports = (dig(service, ["spec", "ports"]) ?? []) as { port: number; targetPort?: number | string }[];
        ports.forEach((p, i) => {
          const target = typeof p.targetPort === "string" ? named.get(p.targetPort) : (p.targetPort ?? p.port);
          if (p.port !== SERVER_SERVICE_PORT) hits.push(hit(service, ["spec", "ports", i, "port"], `port ${p.port}, not ${SERVER_SERVICE_PORT}`));
          if (target !== SERVER_TLS_PORT) hits.push(hit(service, ["spec", "ports", i, "targetPort"], `targetPort ${JSON.stringify(p.targetPort ?? p.port)} does not reach the Server's TLS port ${SERVER_TLS_PORT}`));
        });
      }
      return hits;
    },
  },
  {
    id: "CS-09",
    summary: "The Server's configuration lists its cluster entries: name, namespace, serviceAccount, audience, maxTokenLifetime",
    fix: `give each entry of clusters in the --config file a name, namespace, serviceAccount, audience ${RUNNER_AUDIENCE} and maxTokenLifetime ${TOKEN_MIN_SECONDS}..${TOKEN_MAX_SECONDS}`,
    why: "The Server accepts a Runner's projected token only through a cluster entry that matches it (CR-03, CR-04)",
    severity: "error",
    profiles: SERVER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, container, containerPath } of serverContainers(set)) {
        const { value, index } = flagValue(container.args ?? [], "--config");
        if (value === undefined) {
          hits.push(hit(object, [...containerPath, "args"], "no --config argument: the Server has no cluster entries"));
          continue;
        }
        const { volume, rest } = volumeOver(spec, container, value);
        const cm = set.ofKind("ConfigMap").find((c) => c.metadata.name === volume?.configMap?.name);
        const text = cm ? ((cm.data ?? {}) as Record<string, string>)[volume?.configMap?.items?.find((i) => i.path === rest)?.key ?? rest] : undefined;
        if (!cm || text === undefined) {
          hits.push(hit(object, [...containerPath, "args", index], `--config ${value} is not a key of a ConfigMap in this set`));
          continue;
        }
        const at = ["data", volume?.configMap?.items?.find((i) => i.path === rest)?.key ?? rest];
        const clusters = parseServerConfig(text)?.clusters;
        if (!Array.isArray(clusters) || clusters.length === 0) {
          hits.push(hit(cm, at, "the configuration has no cluster entries (clusters)"));
          continue;
        }
        clusters.forEach((entry: Record<string, unknown>, i) => {
          const missing = ["name", "namespace", "serviceAccount", "audience", "maxTokenLifetime"].filter((k) => entry?.[k] === undefined || entry?.[k] === "");
          if (missing.length > 0) hits.push(hit(cm, at, `cluster entry ${i + 1} has no ${missing.join(", ")}`));
          if (entry?.audience !== undefined && entry.audience !== RUNNER_AUDIENCE) hits.push(hit(cm, at, `cluster entry ${i + 1} has audience ${JSON.stringify(entry.audience)}, not ${RUNNER_AUDIENCE}`));
          const life = entry?.maxTokenLifetime;
          if (life !== undefined && (typeof life !== "number" || !Number.isInteger(life) || life < TOKEN_MIN_SECONDS || life > TOKEN_MAX_SECONDS)) {
            hits.push(hit(cm, at, `cluster entry ${i + 1} has maxTokenLifetime ${JSON.stringify(life)}, outside ${TOKEN_MIN_SECONDS}..${TOKEN_MAX_SECONDS}`));
          }
        });
      }
      return hits;
    },
  },
  {
    id: "CS-10",
    summary: "The Server (and its bundled NATS) is not pinned to an architecture",
    fix: "remove kubernetes.io/arch from nodeSelector and node affinity; the images are multi-arch (amd64 and arm64)",
    why: "D10: every image is multi-arch; an architecture pin strands the Server when nodes of that architecture are gone",
    severity: "error",
    profiles: SERVER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, path } of set.pods()) {
        for (const label of ARCH_LABELS) if (spec.nodeSelector?.[label] !== undefined) hits.push(hit(object, [...path, "nodeSelector", label], `nodeSelector pins ${label} ${spec.nodeSelector[label]}`));
        const affinity = spec.affinity?.nodeAffinity;
        const terms = [
          ...(affinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []),
          ...(affinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((p) => p.preference),
        ];
        if (terms.some((t) => (t?.matchExpressions ?? []).some((e) => (ARCH_LABELS as readonly string[]).includes(e.key)))) {
          hits.push(hit(object, [...path, "affinity", "nodeAffinity"], "node affinity selects an architecture"));
        }
      }
      return hits;
    },
  },
  {
    id: "CS-11",
    summary: `A NetworkPolicy for the Server: ingress only on ${SERVER_TLS_PORT}; egress only to named destinations (DNS, Postgres, NATS, forge hosts)`,
    fix: `select the Server pods with a NetworkPolicy of types Ingress and Egress: ingress rules on port ${SERVER_TLS_PORT} only; egress to DNS, Postgres, NATS and the forge's ranges, never to everything`,
    why: "Without it every pod in the cluster reaches the Server's other ports, and the Server reaches everything",
    severity: "error",
    profiles: SERVER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const pod of serverPods(set)) {
        const policies = set.ofKind("NetworkPolicy").filter((p) => selectsPods(p, podLabels(pod)));
        if (policies.length === 0) {
          hits.push(hit(pod.object, ["metadata", "name"], "no NetworkPolicy selects the Server pods"));
          continue;
        }
        for (const policy of policies) {
          const spec = ((policy as NetworkPolicy).spec ?? {}) as NonNullable<NetworkPolicy["spec"]>;
          const types = spec.policyTypes ?? [];
          if (!types.includes("Ingress") || !types.includes("Egress")) hits.push(hit(policy, ["spec", "policyTypes"], "policyTypes does not list both Ingress and Egress"));
          (spec.ingress ?? []).forEach((rule, r) => {
            const ports = rule.ports ?? [];
            if (ports.length === 0) hits.push(hit(policy, ["spec", "ingress", r], "an ingress rule without ports admits every port"));
            ports.forEach((p, i) => {
              if (p.port !== SERVER_TLS_PORT && p.port !== "https") hits.push(hit(policy, ["spec", "ingress", r, "ports", i, "port"], `ingress on port ${p.port}, not the TLS port ${SERVER_TLS_PORT}`));
            });
          });
          const egress = spec.egress ?? [];
          egress.forEach((rule, r) => {
            if ((rule.to ?? []).length === 0) hits.push(hit(policy, ["spec", "egress", r], "an egress rule without `to` allows every destination"));
            (rule.to ?? []).forEach((peer, j) => {
              if (peer.ipBlock?.cidr === "0.0.0.0/0" || peer.ipBlock?.cidr === "::/0") hits.push(hit(policy, ["spec", "egress", r, "to", j, "ipBlock", "cidr"], `egress to ${peer.ipBlock.cidr} allows every destination`));
            });
          });
          if (types.includes("Egress") && !egress.some((rule) => (rule.ports ?? []).some((p) => p.port === 53))) hits.push(hit(policy, ["spec", "egress"], "no egress rule for DNS (port 53)"));
        }
      }
      return hits;
    },
  },
  {
    id: "CS-12",
    summary: "Postgres 16 or later; the owner is a superuser, or a role with CREATEROLE and BYPASSRLS",
    fix: "upgrade Postgres to 16 or later and give the Server's owner role SUPERUSER, or CREATEROLE and BYPASSRLS",
    why: "D3 sets the floor: Postgres 16 or later, owned by a superuser or by a role with CREATEROLE and BYPASSRLS",
    judgedFrom: "a live database: manifests do not show the Postgres version or roles; `rigging preflight postgres` checks them against the server",
    severity: "error",
    profiles: SERVER,
    check() {
      return [];
    },
  },
];
