// What a change does in these systems' terms: restarts, downtime, what waits,
// and what breaks until the other half of a Server/Runner pair follows.
import type { K8sObject } from "../k8s/objects.ts";
import type { FieldChange } from "./compare.ts";
import { NATS_CONFIG_HASH } from "../systems/compass-server/ports.ts";
import { isNatsConfig, isNatsDeployment, isRunner, isRunnerClusters, isServer } from "./roles.ts";
import { tlsPairConsequences } from "./tls-pair.ts";
import { tokenPairConsequences } from "./token-pair.ts";

export type ConsequenceId =
  | "runner-restart"
  | "server-downtime"
  | "rollout"
  | "token-pair"
  | "tls-trust"
  | "tls-name"
  | "admission"
  | "runner-clusters"
  | "nats-restart"
  | "nats-config"
  | "removed"
  | "added";

export interface Consequence {
  id: ConsequenceId;
  /** One line a person reads. */
  message: string;
  /** Its few words in the summary, when not SHORT's. */
  short?: string;
}

export interface ObjectDiff {
  key: string;
  change: "added" | "removed" | "changed";
  old?: K8sObject;
  new?: K8sObject;
  fields: FieldChange[];
  consequences: Consequence[];
}

const ADMISSION_KINDS = new Set([
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
]);

/** The consequences of each object's change, the pair's included; `diffs` is changed in place. */
export function judge(diffs: ObjectDiff[], sides: BothSides): void {
  for (const diff of diffs) diff.consequences = objectConsequences(diff);
  tokenPairConsequences(diffs, sides);
  tlsPairConsequences(diffs, sides);
  for (const diff of diffs) diff.consequences = diff.consequences.filter((c, i, all) => all.findIndex((o) => o.message === c.message) === i);
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
      short: SHORT["nats-restart"],
    });
  }
}

/** How a file read at start reaches its reader, which runs beside it in its namespace. */
interface Reading {
  reader: (o: K8sObject) => boolean;
  /** The reader's consequences that restart it. */
  restarts: readonly ConsequenceId[];
  /** Its Deployment's name when neither side holds it. */
  fallback: string;
  /** What the message adds when the same apply restarts the reader. */
  together: string;
  /** The summary's words then, when not the file's own. */
  short?: string;
}

/** Says whether the same apply restarts the reader of a changed file, or gives the command that does. */
function followRestart(diffs: readonly ObjectDiff[], sides: BothSides, diff: ObjectDiff, id: ConsequenceId, reading: Reading): void {
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

/** The few words of each consequence, for a one-line summary. */
export const SHORT: Record<ConsequenceId, string> = {
  "runner-restart": "Runner restarts",
  "server-downtime": "downtime (Recreate)",
  rollout: "rollout",
  "token-pair": "enrollment breaks until both sides follow",
  "tls-trust": "TLS trust breaks until both sides follow",
  "tls-name": "TLS name breaks until both sides follow",
  admission: "admission changes at once",
  "runner-clusters": "runner-clusters waits for a Server restart",
  "nats-restart": "NATS restarts",
  "nats-config": "NATS configuration waits for a NATS restart",
  removed: "removal",
  added: "addition",
};

/** What each kind of change does, for docs/diff.md's table (src/docs/generate.ts writes it). */
export const CONSEQUENCE_ROWS: readonly { ids: readonly ConsequenceId[]; change: string; consequence: string }[] = [
  {
    ids: ["runner-restart"],
    change: "the Runner DaemonSet's pod template",
    consequence:
      "restarts the Runner on its node (from the node selector's `kubernetes.io/hostname`, else every node it selects), at the update strategy's pace; the sessions there are reaped within the grace period (`terminationGracePeriodSeconds`)",
  },
  {
    ids: ["server-downtime", "rollout"],
    change: "the Server Deployment's pod template, under `Recreate`",
    consequence: "downtime: the pod stops before the new one starts; under `RollingUpdate`, a rollout",
  },
  {
    ids: ["nats-restart"],
    change: "the bundled NATS Deployment's pod template, its configuration hash (`rigging.dev/nats-config-sha256`) included",
    consequence:
      "restarts NATS: under `Recreate` its pod stops before the new one starts; when the hash changed, diff says NATS restarts to read its new configuration. Until NATS is back, the Compass Server falls back to its cursor sweep for events",
  },
  {
    ids: ["nats-config"],
    change: "the NATS configuration (a ConfigMap with `nats.conf`)",
    consequence:
      "takes effect only when NATS restarts (nats-server reads it at start); diff says whether the same apply restarts it (the pod template carries the file's hash when rigging renders both) or gives the `kubectl rollout restart`",
  },
  {
    ids: ["token-pair"],
    change: "the Runner's projected token audience or lifetime",
    consequence:
      "enrollment breaks until the Server's cluster entry (its runner-clusters file: `audience`, `maxTokenLifetime`) accepts it and the Server has restarted; with the entry present on NEW's side, diff says whether it accepts the token",
  },
  {
    ids: ["token-pair"],
    change: "the Server's cluster entries, the Runner unchanged",
    consequence: "whether they still accept the Runner's token; if not, enrollment breaks once the Server restarts, until the Runner's DaemonSet follows",
  },
  {
    ids: ["tls-trust"],
    change: "the Runner's Server CA (`serverCA`: its ConfigMap or Secret, the key, or the bundle in it), the Server's certificate unchanged",
    consequence:
      "enrollment fails with a TLS error until the Server presents a certificate the new CA signs; when NEW's side holds both the CA bundle and the Server's certificate (their ConfigMap and Secret), diff checks the signature itself, whichever side changed",
  },
  {
    ids: ["tls-trust"],
    change: "the Server's certificate (its TLS Secret, the key, or the certificate in it), the Runner's CA unchanged",
    consequence:
      "enrollment fails with a TLS error, once the Server presents it, until the Runner's CA signs it; with the certificate on NEW's side, diff also checks that it names the host the Runner verifies; not judged when the Runner trusts the system roots",
  },
  {
    ids: ["tls-name"],
    change: "the name the Runner verifies (`serverName` with P9, else the host of `serverAddr`), the Server unchanged",
    consequence:
      "enrollment fails with a TLS error until the Server is reached by that name with a certificate that names it; with the Server on NEW's side, only when the name is neither its public host nor its Service, or, with its certificate there, when the certificate does not name it",
  },
  {
    ids: ["tls-name"],
    change: "the Server's public host or Service, the Runner unchanged",
    consequence:
      "when the name the Runner verifies is no longer among them, enrollment fails (a TLS error, or no such host) until the Runner's `serverName` or `serverAddr` follows",
  },
  {
    ids: ["admission"],
    change: "an admission policy or binding (ValidatingAdmissionPolicy, its binding, a webhook configuration)",
    consequence: "takes effect at once, for every request from then on; removed, it stops guarding at once",
  },
  {
    ids: ["runner-clusters"],
    change: "the runner-clusters ConfigMap",
    consequence:
      "takes effect only after the Server restarts (it reads the file at boot); diff says whether the same apply restarts it (the pod template carries the file's hash when rigging renders both) or gives the `kubectl rollout restart`",
  },
  {
    ids: ["removed"],
    change: "the Runner DaemonSet or Server Deployment removed",
    consequence: "the Runner stops on every node / the Server stops",
  },
];

function objectConsequences(diff: ObjectDiff): Consequence[] {
  const object = (diff.new ?? diff.old)!;
  const out: Consequence[] = [];
  const template = diff.change === "changed" && diff.fields.some((f) => f.path.startsWith("spec.template."));
  if (object.kind === "DaemonSet" && isRunner(object) && template) out.push({ id: "runner-restart", message: runnerRestart(object) });
  if (isNatsDeployment(object) && template) out.push({ id: "nats-restart", message: natsRestart(object, diff.fields) });
  else if (object.kind === "Deployment" && template) {
    const strategy = strategyOf(object);
    const who = isServer(object) ? "the Compass Server" : `${object.metadata.name}`;
    if (strategy === "Recreate")
      out.push({
        id: "server-downtime",
        message: `downtime: under Recreate ${who}'s pod stops before its new pod starts, so ${who} is down until the new pod is ready`,
      });
    else out.push({ id: "rollout", message: `${who} rolls out new pods (${strategy})` });
  }
  if (ADMISSION_KINDS.has(object.kind))
    out.push({
      id: "admission",
      message: `takes effect at once, for every request the API server admits from then on, no restart needed${diff.change === "removed" ? "; removed, it stops guarding at once" : ""}`,
    });
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

/** A Deployment's update strategy, with the API server's default. */
function strategyOf(deployment: K8sObject): string {
  return (deployment.spec as { strategy?: { type?: string } } | undefined)?.strategy?.type ?? "RollingUpdate";
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

/** Every object of each side, for the pair's other half. */
export interface BothSides {
  old: readonly K8sObject[];
  new: readonly K8sObject[];
}
