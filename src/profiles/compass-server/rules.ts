// Server rules (CS-), judged on what compass-server really reads: a flag or
// its variable twin, the flag winning. Bundled NATS objects meet G- rules too.
import type { Container, Volume } from "kubernetes-types/core/v1";
import type { NetworkPolicy, NetworkPolicyIngressRule, NetworkPolicyPort } from "kubernetes-types/networking/v1";
import { secretValueProblem } from "../../core/inline-secrets.ts";
import { parseImage } from "../../core/image.ts";
import { annotationProblems } from "../../core/names.ts";
import { dig, hit, type ContainerRef, type Rule, type RuleHit } from "../../rules/engine.ts";
import { SERVER_APP, SERVER_SERVICE_PORT, SERVER_TLS_PORT, SERVER_UID } from "./ports.ts";
import { isolates, isolationGaps, list, policiesSelecting } from "../../rules/templates.ts";
import { configMapFile, isNats, isServer, serverContainers, serverPods } from "./objects.ts";
import { readRunnerClusters } from "./runner-clusters.ts";
import { forgeWritesRefused, releaseRules } from "./rules-release.ts";
import { GO_BOOL, MASTER_KEY_SECRET, NOT_READ, RUNNER_CLUSTERS_SCHEMA, SECRETSPEC, SERVER_ENV, SERVER_INTERFACE as F } from "./runtime.ts";
import { flagOrEnv, givenFlags, type FlagOrEnv } from "../../core/flag-or-env.ts";
import { fromSecret, isSecretVolume, listenPort, mountOver, SERVER_READING, settingPath, writableAt } from "./settings.ts";
import { CS } from "./requirements.ts";
import { rule } from "../../rules/requirement-data.ts";

/** What CS-11 reports of the isolation template: open directions, egress to everywhere, no DNS. */
const SERVER_GAPS = new Set(["ingress-not-isolated", "egress-not-isolated", "egress-anywhere", "egress-any-host", "egress-everything-cidr", "no-dns"]);
const WORKLOAD_KINDS = ["Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob"];
const ARCH_LABELS = ["kubernetes.io/arch", "beta.kubernetes.io/arch"] as const;

/** The port the Server's TLS door listens on, from --listen (8443 when it cannot be read). */
function tlsPortOf(container: Container): number {
  const listen = flagOrEnv(container, F.listen, SERVER_READING)?.value;
  return (listen && listenPort(listen)) || SERVER_TLS_PORT;
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
  const given = givenFlags(container, SERVER_READING)
    .filter((f) => f.flag === flag)
    .pop();
  if (!given || given.value === "") {
    hits.push(hit(object, [...containerPath, "args"], `no ${flag} argument: ${what} is not read from a file`));
    return undefined;
  }
  const found = mountOver(spec, container, given.value);
  if (!isSecretVolume(found.volume)) {
    hits.push(hit(object, [...containerPath, ...given.path], `${flag} ${given.value} is not a file of a Secret volume`));
    return undefined;
  }
  return { volume: found.volume!, rest: found.rest, index: found.index };
}

/** A finding's path for a resolved setting, or the container's `where` when there is none. */
function at(ref: ContainerRef, r: FlagOrEnv | undefined, where: string): PropertyKey[] {
  return [...ref.containerPath, ...(r ? settingPath(r) : [where])];
}

// Blanks within one line only: `^\s*` would read on through the empty lines after every line start (quadratic).
const SECRET_CONFIG_LINE =
  /^[ \t]*"?(password|passwd|secret|token|masterKey|adminToken|privateKey|webhookSecret|databaseURL|databaseUrl)"?[ \t]*[:=][ \t]*("?)([^\s"#]+)\2/gim;

/** Whether a NATS config sets a password in `authorization { }`, each block read once. */
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

/** nats-server turns JetStream on with a `jetstream` block or `jetstream: enabled`, or with -js (line starts: blanks within the line only, as above). */
const JETSTREAM_ON = /^[ \t]*jetstream\s*(\{|[:=]\s*"?(enabled?|true)\b)/m;
const STORE_DIR = /^[ \t]*store_dir\s*[:=]\s*"?([^"\s]+)"?/m;

export const compassServerRules: Rule[] = [
  rule(CS["CS-01"], {
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
        if (strategy !== "Recreate")
          hits.push(
            hit(d, ["spec", "strategy", "type"], `strategy is ${strategy === undefined ? "unset (RollingUpdate)" : JSON.stringify(strategy)}, not Recreate`),
          );
      }
      for (const hpa of set.ofKind("HorizontalPodAutoscaler")) hits.push(hit(hpa, ["kind"], "an autoscaler would run more than one Server"));
      return hits;
    },
  }),
  rule(CS["CS-02"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, container, containerPath } of serverContainers(set)) {
        const uid = container.securityContext?.runAsUser ?? spec.securityContext?.runAsUser;
        const gid = container.securityContext?.runAsGroup ?? spec.securityContext?.runAsGroup;
        if (uid !== SERVER_UID || gid !== SERVER_UID)
          hits.push(hit(object, [...containerPath, "securityContext"], `the Server runs as ${uid ?? "?"}:${gid ?? "?"}, not ${SERVER_UID}:${SERVER_UID}`));
      }
      return hits;
    },
  }),
  rule(CS["CS-03"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const o of set.objects) {
        if (o.kind === "StatefulSet" || o.kind === "PersistentVolumeClaim")
          hits.push(hit(o, ["kind"], `a ${o.kind} in the Server set: Postgres is user-provided, and the Server keeps no volume`));
      }
      for (const { object, container, containerPath } of set.containers()) {
        const parsed = parseImage(String(container.image ?? ""));
        const repository = typeof parsed === "string" ? String(container.image ?? "") : parsed.repository;
        if (/(^|\/)(postgres|postgresql|postgis|pgvector)([:@/]|$)/.test(repository))
          hits.push(hit(object, [...containerPath, "image"], "a Postgres container: Postgres is user-provided and never rendered"));
      }
      for (const { object, spec, path } of serverPods(set)) {
        if ((spec.initContainers ?? []).length > 0)
          hits.push(hit(object, [...path, "initContainers"], "the Server pod has init containers; it migrates at boot"));
      }
      for (const ref of serverContainers(set)) {
        const dsn = flagOrEnv(ref.container, F.database, SERVER_READING);
        if (!dsn)
          hits.push(
            hit(
              ref.object,
              [...ref.containerPath, "env"],
              `no Postgres DSN: neither --database nor ${F.database.env} is set, and the Server exits ("a Postgres DSN is required")`,
            ),
          );
        else if (!fromSecret(dsn)) hits.push(hit(ref.object, at(ref, dsn, "env"), `${dsn.name} is not fed from a Secret (secretKeyRef)`));
      }
      return hits;
    },
  }),
  rule(CS["CS-04"], {
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
  }),
  rule(CS["CS-05"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set)) {
        const { object, container, containerPath, spec } = ref;
        (container.env ?? []).forEach((env, index) => {
          if (/MASTER_?KEY/i.test(env.name) && !/_(FILE|PATH)$/i.test(env.name))
            hits.push(hit(object, [...containerPath, "env", index], `${env.name} passes the master key through the environment`));
        });
        const provider = flagOrEnv(container, F.secretProvider, SERVER_READING);
        if (!provider || provider.value === undefined) {
          hits.push(
            hit(
              object,
              at(ref, provider, "args"),
              `no --secret-provider: the Server resolves ${MASTER_KEY_SECRET} through secretspec's default chain (a keyring), which a pod does not have`,
            ),
          );
          continue;
        }
        const match = /^([a-z][a-z0-9+.-]*):(.*)$/i.exec(provider.value);
        const scheme = match?.[1].toLowerCase();
        if (scheme === "env") {
          hits.push(hit(object, at(ref, provider, "args"), `--secret-provider ${provider.value} reads the master key from the environment`));
          continue;
        }
        if (scheme !== SECRETSPEC.scheme) {
          hits.push(hit(object, at(ref, provider, "args"), `--secret-provider ${provider.value} does not read the master key from a file of a Secret volume`));
          continue;
        }
        const root = match![2].replace(/^\/\//, "").replace(/\/+$/, "");
        if (!root.startsWith("/")) {
          hits.push(hit(object, at(ref, provider, "args"), `--secret-provider ${provider.value} has no absolute root directory`));
          continue;
        }
        const file = `${root}/${SECRETSPEC.project}/${SECRETSPEC.profile}/${MASTER_KEY_SECRET}`;
        const found = mountOver(spec, container, file);
        if (!isSecretVolume(found.volume)) hits.push(hit(object, [...containerPath, "volumeMounts"], `${file} is not a file of a Secret volume`));
        else if (found.mount!.mountPath !== file || !found.mount!.subPath)
          hits.push(
            hit(
              object,
              [...containerPath, "volumeMounts"],
              `${file} sits in a Secret volume mounted as a directory, whose symbolic links SecretSpec's file provider refuses: mount the key by subPath`,
            ),
          );
      }
      return hits;
    },
  }),
  rule(CS["CS-06"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set)) {
        (ref.container.env ?? []).forEach((env, index) => {
          if (/ADMIN_?TOKEN/i.test(env.name) && !/_(FILE|PATH)$/i.test(env.name))
            hits.push(hit(ref.object, [...ref.containerPath, "env", index], `${env.name} passes the admin token through the environment`));
        });
        // The released Server takes no such flag and mints its token: nothing more to judge.
        if (!givenFlags(ref.container, SERVER_READING).some((f) => f.flag === F.adminTokenFile.flag)) continue;
        const found = secretFileFlag(ref, F.adminTokenFile.flag, "the admin token", hits);
        if (!found) continue;
        const mode = fileMode(found.volume, found.rest);
        if ((mode & 0o077) !== 0)
          hits.push(hit(ref.object, [...ref.path, "volumes", found.index], `the admin token file has mode 0${mode.toString(8)}, not private (0400)`));
      }
      return hits;
    },
  }),
  rule(CS["CS-07"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set)) {
        const url = flagOrEnv(ref.container, F.natsUrl, SERVER_READING);
        if (!url)
          hits.push(
            hit(
              ref.object,
              [...ref.containerPath, "env"],
              `no NATS URL: neither --nats-url nor ${F.natsUrl.env} is set, and the Server exits ("a NATS URL is required")`,
            ),
          );
        else if (!fromSecret(url)) {
          const bare = url.value !== undefined && !/^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(url.value);
          hits.push(
            hit(
              ref.object,
              at(ref, url, "env"),
              bare
                ? `${url.name} carries no password: the Server would connect to NATS without password auth`
                : `${url.name} is not fed from a Secret (secretKeyRef), yet it carries the NATS password`,
            ),
          );
        }
      }
      const natsPods = set.pods().filter((p) => isNats(p.object));
      for (const pod of natsPods) {
        const replicas = dig(pod.object, ["spec", "replicas"]);
        if (replicas !== undefined && replicas !== 1)
          hits.push(hit(pod.object, ["spec", "replicas"], `the bundled NATS has ${JSON.stringify(replicas)} replicas, not 1`));
        (pod.spec.containers ?? []).forEach((container, i) => {
          const args = container.args ?? [];
          const index = args.findIndex((a) => a === "--pass" || a.startsWith("--pass="));
          const value = index < 0 ? undefined : args[index].startsWith("--pass=") ? args[index].slice(7) : args[index + 1];
          if (value !== undefined && !/^\$\(\w+\)$/.test(value))
            hits.push(hit(pod.object, [...pod.path, "containers", i, "args", index], "--pass carries the NATS password inline"));
        });
        const configured = set
          .ofKind("ConfigMap")
          .some((cm) => isNats(cm) && Object.values((cm.data ?? {}) as Record<string, string>).some(natsConfigHasPassword));
        const byFlag = (pod.spec.containers ?? []).some((c) => (c.args ?? []).some((a) => a === "--pass" || a.startsWith("--pass=")));
        if (!configured && !byFlag) hits.push(hit(pod.object, pod.path, "the bundled NATS has no password authorization"));
        const policies = policiesSelecting(set, pod).filter((p) => isolates(p, "Ingress"));
        if (policies.length === 0) hits.push(hit(pod.object, ["metadata", "name"], "no NetworkPolicy limits who reaches the bundled NATS"));
        for (const policy of policies) {
          ((policy as NetworkPolicy).spec?.ingress ?? []).forEach((rule, r) => {
            const from = rule.from ?? [];
            const onlyServer =
              from.length > 0 &&
              from.every((peer) => !peer.ipBlock && !peer.namespaceSelector && peer.podSelector?.matchLabels?.["app.kubernetes.io/name"] === SERVER_APP);
            if (!onlyServer) hits.push(hit(policy, ["spec", "ingress", r, "from"], "admits clients other than the Server pods"));
          });
        }
      }
      return hits;
    },
  }),
  rule(CS["CS-08"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ingress of set.ofKind("Ingress")) hits.push(hit(ingress, ["kind"], "an Ingress in front of the Server terminates TLS"));
      const containers = serverContainers(set);
      const targets = new Map<string, number>();
      for (const ref of containers) {
        const listen = flagOrEnv(ref.container, F.listen, SERVER_READING);
        if (!listen?.value)
          hits.push(hit(ref.object, [...ref.containerPath, "args"], "no --listen: the Server serves only its Unix socket, and no Runner can enroll"));
        else if (listenPort(listen.value) === undefined) hits.push(hit(ref.object, at(ref, listen, "args"), `--listen ${listen.value} has no port`));
        secretFileFlag(ref, F.tlsCert.flag, "the certificate", hits);
        secretFileFlag(ref, F.tlsKey.flag, "the private key", hits);
        const port = tlsPortOf(ref.container);
        if (!(ref.container.ports ?? []).some((p) => p.containerPort === port))
          hits.push(hit(ref.object, [...ref.containerPath, "ports"], `the Server declares no containerPort ${port}, its --listen port`));
        for (const p of ref.container.ports ?? []) if (p.name) targets.set(p.name, p.containerPort);
        targets.set("", port);
      }
      const listenTarget = targets.get("") ?? SERVER_TLS_PORT;
      const services = set.ofKind("Service").filter(isServer);
      if (containers.length > 0 && services.length === 0)
        hits.push(hit(containers[0].object, ["metadata", "name"], `no Service exposes the Server on ${SERVER_SERVICE_PORT}`));
      for (const service of services) {
        // Annotations the API server refuses make the Service fail to apply (as render refuses them under this ID).
        for (const { key, message } of annotationProblems(dig(service, ["metadata", "annotations"])))
          hits.push(hit(service, key === undefined ? ["metadata", "annotations"] : ["metadata", "annotations", key], message));
        const ports = (dig(service, ["spec", "ports"]) ?? []) as { port: number; targetPort?: number | string }[];
        ports.forEach((p, i) => {
          const target = typeof p.targetPort === "string" ? targets.get(p.targetPort) : (p.targetPort ?? p.port);
          if (p.port !== SERVER_SERVICE_PORT) hits.push(hit(service, ["spec", "ports", i, "port"], `port ${p.port}, not ${SERVER_SERVICE_PORT}`));
          if (target !== listenTarget)
            hits.push(
              hit(
                service,
                ["spec", "ports", i, "targetPort"],
                `targetPort ${JSON.stringify(p.targetPort ?? p.port)} does not reach the Server's TLS port ${listenTarget}`,
              ),
            );
        });
      }
      return hits;
    },
  }),
  rule(CS["CS-09"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set)) {
        const { object, container, containerPath, spec } = ref;
        const path = flagOrEnv(container, F.runnerClusters, SERVER_READING);
        if (!path?.value) {
          hits.push(hit(object, at(ref, path, "args"), "no --runner-clusters: the Server accepts no projected Runner token"));
          continue;
        }
        const file = configMapFile(set, spec, container, path.value);
        if (!file) {
          hits.push(hit(object, at(ref, path, "args"), `--runner-clusters ${path.value} is not a key of a ConfigMap in this set, mounted in the pod`));
          continue;
        }
        const where = ["data", file.key];
        const { clusters, problems } = readRunnerClusters(file.text);
        for (const problem of problems) hits.push(hit(file.cm, where, `the runner clusters file ${problem.message}`));
        if (problems.length === 0 && clusters.length === 0) hits.push(hit(file.cm, where, "the runner clusters file lists no cluster"));
        clusters.forEach((c, i) => {
          if (c.audience !== RUNNER_CLUSTERS_SCHEMA.defaultAudience)
            hits.push(
              hit(
                file.cm,
                where,
                `cluster ${c.name || i + 1} has audience ${JSON.stringify(c.audience)}, but the Runner's token carries ${RUNNER_CLUSTERS_SCHEMA.defaultAudience}`,
              ),
            );
          for (const key of ["jwksFile", "caFile"] as const) {
            const named = c[key];
            if (named && !mountOver(spec, container, named).mount)
              hits.push(hit(object, [...containerPath, "volumeMounts"], `cluster ${c.name}'s ${key} ${named} is not mounted in the Server`));
          }
        });
      }
      return hits;
    },
  }),
  rule(CS["CS-10"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, path } of set.pods()) {
        for (const label of ARCH_LABELS)
          if (spec.nodeSelector?.[label] !== undefined)
            hits.push(hit(object, [...path, "nodeSelector", label], `nodeSelector pins ${label} ${spec.nodeSelector[label]}`));
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
  }),
  rule(CS["CS-11"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const pod of serverPods(set)) {
        const tlsPort = pod.spec.containers?.[0] ? tlsPortOf(pod.spec.containers[0]) : SERVER_TLS_PORT;
        const policies = policiesSelecting(set, pod);
        if (policies.length === 0) {
          hits.push(hit(pod.object, ["metadata", "name"], "no NetworkPolicy selects the Server pods"));
          continue;
        }
        // Isolation and egress as Kubernetes adds the policies up; ingress ports are this rule's own question.
        for (const gap of isolationGaps(policies)) if (SERVER_GAPS.has(gap.kind)) hits.push(hit(gap.object, gap.path, gap.message));
        for (const policy of policies.filter((p) => isolates(p, "Ingress"))) {
          list<NetworkPolicyIngressRule>(dig(policy, ["spec", "ingress"])).forEach((rule, r) => {
            const ports = list<NetworkPolicyPort>(rule?.ports);
            if (ports.length === 0) hits.push(hit(policy, ["spec", "ingress", r], "an ingress rule without ports admits every port"));
            ports.forEach((p, i) => {
              if (p?.port !== tlsPort && p?.port !== "https")
                hits.push(hit(policy, ["spec", "ingress", r, "ports", i, "port"], `ingress on port ${p?.port}, not the TLS port ${tlsPort}`));
            });
          });
        }
      }
      return hits;
    },
  }),
  rule(CS["CS-12"], {
    check() {
      return [];
    },
  }),
  rule(CS["CS-13"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set)) {
        const { object, container, containerPath, spec } = ref;
        for (const flag of givenFlags(container, SERVER_READING)) {
          if (flag.known) continue;
          const instead = Object.hasOwn(NOT_READ, flag.flag) ? NOT_READ[flag.flag] : undefined;
          hits.push(
            hit(
              object,
              [...containerPath, ...flag.path],
              `compass-server has no ${flag.flag} flag and exits with a usage error${instead ? `; use ${instead}` : ""}`,
            ),
          );
        }
        (Array.isArray(container.env) ? container.env : []).forEach((env, index) => {
          const name = String(env?.name ?? "");
          const unread = Object.hasOwn(NOT_READ, name)
            ? NOT_READ[name]
            : name.startsWith("COMPASS_") && !SERVER_ENV.has(name) && name !== MASTER_KEY_SECRET
              ? ""
              : undefined;
          if (unread === undefined) return;
          hits.push(hit(object, [...containerPath, "env", index], `compass-server reads no ${name}${unread ? `; it reads ${unread}` : ""}`));
        });
        hits.push(...forgeWritesRefused(ref));
        const scopes = flagOrEnv(container, F.forgeDisableScopeEnforcement, SERVER_READING);
        if (scopes?.value !== undefined && !GO_BOOL.test(scopes.value))
          hits.push(
            hit(object, at(ref, scopes, "args"), `${scopes.name} ${JSON.stringify(scopes.value)} is not a boolean (ParseBool): the Server fails to start`),
          );
        for (const [name, what] of [
          [F.socket, "its Unix socket"],
          [F.stateDir, "its admin token and SecretSpec manifests"],
        ] as const) {
          const given = flagOrEnv(container, name, SERVER_READING);
          if (!given?.value)
            hits.push(
              hit(object, [...containerPath, "args"], `no ${name.flag}: the Server writes ${what} under $HOME or $XDG_RUNTIME_DIR, on the read-only root`),
            );
          else if (!writableAt(spec, container, given.value))
            hits.push(
              hit(object, at(ref, given, "args"), `${name.flag} ${given.value} is not on a writable volume (an emptyDir): the Server writes ${what} there`),
            );
        }
      }
      for (const pod of set.pods().filter((p) => isNats(p.object))) {
        (pod.spec.containers ?? []).forEach((container, i) => {
          const args = container.args ?? [];
          const byFlag = args.some((a) => a === "-js" || a === "--jetstream");
          const configs = (container.volumeMounts ?? [])
            .map((m) => (pod.spec.volumes ?? []).find((v) => v.name === m.name)?.configMap?.name)
            .flatMap((name) => set.ofKind("ConfigMap").filter((cm) => cm.metadata.name === name))
            .flatMap((cm) => Object.values((cm.data ?? {}) as Record<string, string>));
          const config = configs.find((t) => JETSTREAM_ON.test(t));
          if (!byFlag && !config) {
            hits.push(hit(pod.object, [...pod.path, "containers", i], "the bundled NATS runs without JetStream, which the Server's event fabric needs"));
            return;
          }
          const storeFlag = args.findIndex((a) => a === "-sd" || a === "--store_dir");
          const store = (config ? STORE_DIR.exec(config)?.[1] : undefined) ?? (storeFlag >= 0 ? args[storeFlag + 1] : undefined) ?? "/tmp/nats/jetstream";
          const { volume } = mountOver(pod.spec, container, store);
          if (!writableAt(pod.spec, container, store))
            hits.push(hit(pod.object, [...pod.path, "containers", i, "volumeMounts"], `the JetStream store ${store} is not on a writable volume`));
          else if (volume?.emptyDir && !volume.emptyDir.sizeLimit)
            hits.push(
              hit(pod.object, [...pod.path, "volumes"], `the JetStream store ${store} is an emptyDir without sizeLimit: bound it, and max_file_store below it`),
            );
        });
      }
      return hits;
    },
  }),
  ...releaseRules,
];
