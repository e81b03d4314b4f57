// Server rules (CS-), judged on what compass-server really reads: a flag or
// its variable twin, the flag winning. Bundled NATS objects meet G- rules too.
import type { Container } from "kubernetes-types/core/v1";
import { parseImage } from "../../values/image.ts";
import { hit, type Rule, type RuleHit } from "../../rules/engine.ts";
import { SERVER_UID } from "./ports.ts";
import { SERVER_TLS_PORT } from "../compass-contract/ports.ts";
import { isolationGaps, policiesSelecting } from "../../rules/templates.ts";
import { serverPods } from "./objects.ts";
import { configMapFile, isServer, serverContainers } from "../compass-contract/server-objects.ts";
import { readRunnerClusters } from "../compass-contract/runner-clusters.ts";
import { connectionRules } from "./rules-connections.ts";
import { interfaceRules } from "./rules-interface.ts";
import { at, tlsPortOf } from "./rules-reading.ts";
import { serverIngressPortHits } from "./rules-network.ts";
import { releaseRules } from "./rules-release.ts";
import { secretRules } from "./rules-secrets.ts";
import { SERVER_INTERFACE as F } from "./interface.ts";
import { RUNNER_CLUSTERS_SCHEMA } from "../compass-contract/interface.ts";
import { flagOrEnv } from "../../k8s/flag-or-env.ts";
import { fromSecret, unseen, valueNotShown } from "./settings.ts";
import { mountOver } from "../compass-contract/mounts.ts";
import { SERVER_READING } from "../compass-contract/server-interface.ts";
import { CS } from "./requirements.ts";
import { rule } from "../../rules/requirement-data.ts";
import { dig, list } from "../../k8s/access.ts";

/** What CS-11 reports of the isolation template: open directions, egress to everywhere, no DNS. */
const SERVER_GAPS = new Set(["ingress-not-isolated", "egress-not-isolated", "egress-anywhere", "egress-any-host", "egress-everything-cidr", "no-dns"]);
const WORKLOAD_KINDS = ["Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob"];
const ARCH_LABELS = ["kubernetes.io/arch", "beta.kubernetes.io/arch"] as const;

/** One rule per requirement, in catalog order (the order `rules` and the docs print). */
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
        if (unseen(dsn)) continue;
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
  ...secretRules,
  ...connectionRules,
  rule(CS["CS-09"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set)) {
        const { object, container, containerPath, spec } = ref;
        const path = flagOrEnv(container, F.runnerClusters, SERVER_READING);
        if (valueNotShown(path)) continue;
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
        const containers = list<Container>(pod.spec.containers);
        const server = containers.find((c) => flagOrEnv(c, F.listen, SERVER_READING)) ?? containers[0];
        const tlsPort = server ? tlsPortOf(server) : SERVER_TLS_PORT;
        const policies = policiesSelecting(set, pod);
        if (policies.length === 0) {
          hits.push(hit(pod.object, ["metadata", "name"], "no NetworkPolicy selects the Server pods"));
          continue;
        }
        // Isolation and egress as Kubernetes adds the policies up; ingress ports are this rule's own question.
        for (const gap of isolationGaps(policies)) if (SERVER_GAPS.has(gap.kind)) hits.push(hit(gap.object, gap.path, gap.message));
        // A --listen the input cannot show leaves the ingress ports not judged.
        if (tlsPort !== undefined) hits.push(...serverIngressPortHits(pod, policies, tlsPort));
      }
      return hits;
    },
  }),
  rule(CS["CS-12"], {
    check() {
      return [];
    },
  }),
  ...interfaceRules,
  ...releaseRules,
];
