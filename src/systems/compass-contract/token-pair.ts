// The Server and Runner pair over the Runner's token: each Runner is judged
// against the runner-clusters entry that names its namespace and ServiceAccount.
import type { K8sObject } from "../../k8s/objects.ts";
import type { BothSides, ObjectDiff } from "../consequences.ts";
import { readRunnerClusters } from "./runner-clusters.ts";
import { isRunnerClusters, isRunnerDaemonSet } from "./roles.ts";

interface Token {
  audience?: string;
  expirationSeconds?: number;
}
interface Entry {
  namespace?: string;
  serviceAccount?: string;
  audience?: string;
  maxTokenLifetime?: number;
}
/** An entry and the ConfigMap that holds it. */
interface Held {
  cm: K8sObject;
  entry: Entry;
}

/** The token-pair consequences of every Runner and every runner-clusters file, added to the diffs that carry them. */
export function tokenPairConsequences(diffs: ObjectDiff[], sides: BothSides): void {
  const files = sides.new.filter(isRunnerClusters).map((cm) => ({ cm, entries: entriesOf(cm) }));
  const read = files.filter((f) => f.entries !== undefined);
  const entries: Held[] | undefined = read.length > 0 ? read.flatMap((f) => f.entries!.map((entry) => ({ cm: f.cm, entry }))) : undefined;
  const runners = sides.new.filter(isRunnerDaemonSet);
  const name = (ds: K8sObject) => (runners.length > 1 ? `the Runner ${ds.metadata.namespace ?? "default"}/${ds.metadata.name}` : "the Runner");
  const moved = new Set<string>();
  for (const diff of diffs) {
    if (diff.change !== "changed" || !isRunnerDaemonSet(diff.new)) continue;
    const before = tokenOf(diff.old);
    const after = tokenOf(diff.new);
    if (sameToken(before, after)) continue;
    const id = identityOf(diff.new!);
    moved.add(id);
    const mine = entries?.filter((held) => identityOfEntry(held.entry) === id);
    const accepted = after !== undefined && mine !== undefined && mine.some((held) => accepts(held.entry, after));
    const follows = mine !== undefined && diffs.some((d) => d.change === "changed" && mine.some((held) => held.cm === d.new));
    const change = `${name(diff.new!)}'s token changes (${describeToken(before)} to ${describeToken(after)})`;
    const message = !mine
      ? `${change}: enrollment breaks until the Server's cluster entry (its runner-clusters file, audience and maxTokenLifetime) follows and the Server restarts`
      : mine.length === 0
        ? `${change}, and no cluster entry of the Server names its namespace and ServiceAccount (${id}): enrollment breaks until the Server's cluster entry follows and the Server restarts`
        : !accepted
          ? `${change} and no cluster entry of the Server accepts it: enrollment breaks until the Server's cluster entry follows and the Server restarts`
          : follows
            ? `${change} and the Server's cluster entry follows in the same apply: enrollment breaks from the Runner's restart until the Server has restarted with the new entry`
            : `${change}; the Server's cluster entry accepts it already`;
    diff.consequences.push({ id: "token-pair", message, ...(accepted && !follows ? { short: "token accepted as it is" } : {}) });
  }
  for (const diff of diffs) {
    if (diff.change !== "changed" || !isRunnerClusters(diff.new!)) continue;
    const changed = changedIdentities(entriesOf(diff.old!), entriesOf(diff.new!));
    if (changed.size === 0 || [...changed].every((id) => moved.has(id))) continue;
    const judged = runners.filter((ds) => changed.has(identityOf(ds)) && !moved.has(identityOf(ds)) && tokenOf(ds) !== undefined);
    if (judged.length === 0)
      diff.consequences.push({
        id: "token-pair",
        message:
          "the Server's cluster entries change (audience or token lifetime): a Runner whose token they refuse cannot enroll, once the Server restarts, until its DaemonSet follows",
      });
    for (const ds of judged) {
      const token = tokenOf(ds)!;
      const fine = entries?.some((held) => identityOfEntry(held.entry) === identityOf(ds) && accepts(held.entry, token)) === true;
      const message = fine
        ? `the Server's cluster entries change and still accept ${name(ds)}'s token (${describeToken(token)})`
        : `the Server's cluster entries change and refuse ${name(ds)}'s token (${describeToken(token)}): enrollment breaks, once the Server restarts, until ${name(ds)}'s DaemonSet follows`;
      diff.consequences.push({ id: "token-pair", message, ...(fine ? { short: "token accepted as it is" } : {}) });
    }
  }
}

/** `namespace/serviceAccount`: whom a Runner's token names, as its pod template runs it. */
export function identityOf(ds: K8sObject): string {
  const pod = (ds.spec as { template?: { spec?: { serviceAccountName?: unknown; serviceAccount?: unknown } } } | undefined)?.template?.spec;
  const account = pod?.serviceAccountName ?? pod?.serviceAccount;
  return `${ds.metadata.namespace ?? "default"}/${typeof account === "string" && account !== "" ? account : "default"}`;
}

function identityOfEntry(entry: Entry): string {
  return `${entry.namespace ?? ""}/${entry.serviceAccount ?? ""}`;
}

/** The identities whose entry was added, removed or changed. */
function changedIdentities(before: Entry[] | undefined, after: Entry[] | undefined): Set<string> {
  const byIdentity = (entries: Entry[] | undefined) => new Map((entries ?? []).map((e) => [identityOfEntry(e), JSON.stringify(e)]));
  const a = byIdentity(before);
  const b = byIdentity(after);
  const changed = new Set<string>();
  for (const id of new Set([...a.keys(), ...b.keys()])) if (a.get(id) !== b.get(id)) changed.add(id);
  return changed;
}

function accepts(entry: Entry, token: Token): boolean {
  return (entry.audience ?? "compass-runner") === (token.audience ?? "") && (entry.maxTokenLifetime ?? 600) >= (token.expirationSeconds ?? 3600);
}

function sameToken(a: Token | undefined, b: Token | undefined): boolean {
  return a?.audience === b?.audience && a?.expirationSeconds === b?.expirationSeconds;
}

function describeToken(token: Token | undefined): string {
  return token ? `audience ${token.audience ?? "(none)"}, ${token.expirationSeconds ?? 3600} s` : "no token";
}

/** The projected serviceAccountToken of the Runner's pod template. */
function tokenOf(ds: K8sObject | undefined): Token | undefined {
  if (!ds) return undefined;
  const volumes = ((ds.spec as { template?: { spec?: { volumes?: unknown[] } } })?.template?.spec?.volumes ?? []) as {
    projected?: { sources?: { serviceAccountToken?: Token }[] };
  }[];
  for (const volume of volumes) for (const source of volume.projected?.sources ?? []) if (source.serviceAccountToken) return source.serviceAccountToken;
  return undefined;
}

/** The runner-clusters file's entries as the Server reads them (its defaults, Go durations); undefined when it is no YAML the Server reads. */
export function entriesOf(cm: K8sObject): Entry[] | undefined {
  const text = Object.values((cm.data ?? {}) as Record<string, unknown>).find((v) => typeof v === "string");
  if (typeof text !== "string") return undefined;
  const { clusters, problems } = readRunnerClusters(text);
  if (problems.some((p) => p.entry === undefined && p.message.startsWith("is not YAML"))) return undefined;
  return clusters.map((c) => ({ namespace: c.namespace, serviceAccount: c.serviceAccount, audience: c.audience, maxTokenLifetime: c.maxTokenLifetimeSeconds }));
}
