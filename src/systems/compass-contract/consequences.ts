// What a change does in the Compass systems' terms: the Runner's restarts,
// NATS's, what waits for a restart, and what breaks until the other half of a
// Server/Runner pair follows. Both systems' records carry this one record.
import type { K8sObject } from "../../k8s/objects.ts";
import { type BothSides, type Consequence, type FieldChange, type ObjectDiff, strategyOf, type SystemConsequences } from "../consequences.ts";
import { COMPASS_ROWS, COMPASS_SHORT } from "./consequence-rows.ts";
import { NATS_CONFIG_HASH } from "./ports.ts";
import { isNatsConfig, isNatsDeployment, isRunner, isRunnerClusters, isServer } from "./roles.ts";
import { tlsPairConsequences } from "./tls-pair.ts";
import { tokenPairConsequences } from "./token-pair.ts";

export const COMPASS_CONSEQUENCES: SystemConsequences = {
  short: COMPASS_SHORT,
  rows: COMPASS_ROWS,
  nameOf: (deployment) => (isServer(deployment) ? "the Compass Server" : undefined),
  restartsItself: isNatsDeployment,
  judge,
};

/** The consequences of each object's change, then the pair's; `diffs` is changed in place. */
function judge(diffs: ObjectDiff[], sides: BothSides): void {
  for (const diff of diffs) diff.consequences.push(...objectConsequences(diff));
  tokenPairConsequences(diffs, sides);
  tlsPairConsequences(diffs, sides);
  for (const diff of diffs) {
    followRestart(diffs, sides, diff, "runner-clusters", {
      reader: (o) => o.kind === "Deployment" && isServer(o),
      restarts: ["server-downtime", "rollout"],
      fallback: "compass-server",
      together: "; the Server's pod template changes in the same apply, so the Server restarts with it",
    });
    followRestart(diffs, sides, diff, "nats-config", {
      reader: isNatsDeployment,
      restarts: ["nats-restart"],
      fallback: "nats",
      together: "; NATS's pod template (its configuration hash) changes in the same apply, so NATS restarts with it",
      short: COMPASS_SHORT["nats-restart"],
    });
  }
}

/** How a file read at start reaches its reader, which runs beside it in its namespace. */
interface Reading {
  reader: (o: K8sObject) => boolean;
  /** The reader's consequences that restart it (diff's own rollout and downtime among them). */
  restarts: readonly string[];
  /** Its Deployment's name when neither side holds it. */
  fallback: string;
  /** What the message adds when the same apply restarts the reader. */
  together: string;
  /** The summary's words then, when not the file's own. */
  short?: string;
}

/** Says whether the same apply restarts the reader of a changed file, or gives the command that does. */
function followRestart(diffs: readonly ObjectDiff[], sides: BothSides, diff: ObjectDiff, id: string, reading: Reading): void {
  const entry = diff.consequences.find((c) => c.id === id);
  if (!entry) return;
  const where = diff.old?.metadata.namespace ?? diff.new?.metadata.namespace;
  const beside = (o: K8sObject) => reading.reader(o) && o.metadata.namespace === where;
  const reader = diffs.find((d) => beside((d.new ?? d.old)!));
  const name = (reader ? (reader.new ?? reader.old)! : sides.new.find(beside))?.metadata.name ?? reading.fallback;
  const restarted = reader?.consequences.some((c) => reading.restarts.includes(c.id));
  entry.message += restarted ? reading.together : `; nothing here restarts it: kubectl rollout restart deployment/${name}${where ? ` -n ${where}` : ""}`;
  if (restarted && reading.short) entry.short = reading.short;
}

/** What one object's change does to the Runner, the Server and its NATS; diff's own (rollout, admission) come before these. */
function objectConsequences(diff: ObjectDiff): Consequence[] {
  const object = (diff.new ?? diff.old)!;
  const out: Consequence[] = [];
  const template = diff.change === "changed" && diff.fields.some((f) => f.path.startsWith("spec.template."));
  if (object.kind === "DaemonSet" && isRunner(object) && template) out.push({ id: "runner-restart", message: runnerRestart(object) });
  if (isNatsDeployment(object) && template) out.push({ id: "nats-restart", message: natsRestart(object, diff.fields) });
  if (isRunnerClusters(object) && diff.change !== "added")
    out.push({ id: "runner-clusters", message: "the Server reads its runner-clusters file at boot: the change takes effect only after the Server restarts" });
  if (isNatsConfig(object) && diff.change === "changed")
    out.push({ id: "nats-config", message: "nats-server reads its configuration at start: the change takes effect only when NATS restarts" });
  if (diff.change === "removed" && object.kind === "DaemonSet" && isRunner(object))
    out.push({ id: "removed", message: "the Runner stops on every node, and the sessions there are reaped within the grace period" });
  if (diff.change === "removed" && object.kind === "Deployment" && isServer(object))
    out.push({ id: "removed", message: "the Compass Server stops: downtime until it is applied again" });
  return out;
}

/** NATS's restart, and why when its configuration hash changed. */
function natsRestart(deployment: K8sObject, fields: readonly FieldChange[]): string {
  const strategy = strategyOf(deployment);
  const hash = hashChange(fields);
  // A hash first rendered (an output from before rigging wrote it) restarts NATS once, on a configuration that may not have changed.
  const why =
    hash?.old !== undefined && hash.new !== undefined
      ? ` to read its changed configuration (the pod template's ${NATS_CONFIG_HASH})`
      : hash?.new !== undefined
        ? ` (its pod template gains the configuration's hash, ${NATS_CONFIG_HASH})`
        : "";
  const how = strategy === "Recreate" ? "under Recreate its pod stops before the new one starts" : `it rolls out new pods (${strategy})`;
  return `restarts NATS${why}: ${how}; until NATS is back, the Compass Server falls back to its cursor sweep for events`;
}

const HASH_AT = ["spec", "template", "metadata", "annotations", NATS_CONFIG_HASH];

/** The hash annotation's two sides, whether the change is recorded at it or at a map above it (annotations added whole). */
function hashChange(fields: readonly FieldChange[]): { old?: unknown; new?: unknown } | undefined {
  for (let depth = HASH_AT.length; depth >= 2; depth--) {
    const field = fields.find((f) => f.path === HASH_AT.slice(0, depth).join("."));
    if (!field) continue;
    const below = (value: unknown) => HASH_AT.slice(depth).reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], value);
    return { old: below(field.old), new: below(field.new) };
  }
  return undefined;
}

function runnerRestart(ds: K8sObject): string {
  const spec = (ds.spec ?? {}) as {
    updateStrategy?: { type?: string; rollingUpdate?: { maxUnavailable?: unknown } };
    template?: { spec?: { nodeSelector?: Record<string, string>; terminationGracePeriodSeconds?: number } };
  };
  const pod = spec.template?.spec ?? {};
  const host = pod.nodeSelector?.["kubernetes.io/hostname"];
  const where = host ? `on its node ${host}` : pod.nodeSelector ? `on each node its nodeSelector picks` : "on every node";
  const grace = pod.terminationGracePeriodSeconds ?? 30;
  const pace =
    spec.updateStrategy?.type === "OnDelete"
      ? " when each pod is deleted (OnDelete)"
      : `, ${String(spec.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1)} node at a time`;
  return `restarts the Runner ${where}${pace}; the sessions there are reaped within the grace period (terminationGracePeriodSeconds ${grace} s)`;
}
