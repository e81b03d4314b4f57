// Who a NetworkPolicy lets reach the Server and its bundled NATS, read as Kubernetes reads it:
// selectors as sets of requirements, a peer's own namespaceSelector, ports by name or number.
import type { NetworkPolicyIngressRule } from "kubernetes-types/networking/v1";
import { dig, isRecord, list } from "../../k8s/access.ts";
import type { K8sObject } from "../../k8s/objects.ts";
import { namedPortContainers, policyPortRange } from "../../k8s/ports.ts";
import { selectorRequirements, selectsLabels } from "../../k8s/selector.ts";
import { hit, type ObjectSet, type PodRef, type RuleHit } from "../../rules/engine.ts";
import { isolates, podLabels } from "../../rules/templates.ts";
import { isServer } from "../compass-contract/server-objects.ts";
import { SERVER_APP } from "../compass-contract/ports.ts";

const NAME_LABEL = "app.kubernetes.io/name";
/** The label the API server sets on every Namespace to its name. */
const NAMESPACE_NAME = "kubernetes.io/metadata.name";

const namespaceOf = (o: K8sObject) => o.metadata?.namespace ?? "";

/** Whether a selector pins `key` to values all `allowed` (matchLabels, or In). */
function pins(selector: unknown, key: string, allowed: (value: string) => boolean): boolean {
  const parsed = selectorRequirements(selector);
  return "requirements" in parsed && parsed.requirements.some((r) => r.key === key && r.operator === "In" && r.values.every(allowed));
}

/** Whether a selector names some label by value (matchLabels, or In): not every pod that merely has or lacks a label. */
function pinsAny(selector: unknown): boolean {
  const parsed = selectorRequirements(selector);
  return "requirements" in parsed && parsed.requirements.some((r) => r.operator === "In");
}

/**
 * Whether an ingress peer of a policy in `namespace` admits only the Server's pods: no ipBlock; no namespaceSelector,
 * or one pinned to that namespace; a podSelector that names labels by value, selects a Server pod and no other pod of
 * the set. Without a Server pod in the set, the selector must pin the Server's name label.
 */
function onlyServer(peer: unknown, namespace: string, set: ObjectSet): boolean {
  if (!isRecord(peer) || peer.ipBlock !== undefined || !isRecord(peer.podSelector)) return false;
  const namespaces = peer.namespaceSelector;
  if (namespaces !== undefined && namespaces !== null && !pins(namespaces, NAMESPACE_NAME, (v) => v === namespace)) return false;
  const selector = peer.podSelector;
  if (!pinsAny(selector)) return false;
  const here = set.pods().filter((p) => namespaceOf(p.object) === namespace);
  if (here.some((p) => !isServer(p.object) && selectsLabels(selector, podLabels(p.object)))) return false;
  const servers = here.filter((p) => isServer(p.object));
  if (servers.length === 0) return pins(selector, NAME_LABEL, (v) => v === SERVER_APP);
  return servers.some((p) => selectsLabels(selector, podLabels(p.object)));
}

/** CS-07: each ingress rule of the policies isolating the bundled NATS admits the Server's pods only. */
export function natsIngressHits(set: ObjectSet, policies: readonly K8sObject[]): RuleHit[] {
  const hits: RuleHit[] = [];
  for (const policy of policies) {
    list<NetworkPolicyIngressRule>(dig(policy, ["spec", "ingress"])).forEach((rule, r) => {
      const from = list<unknown>(rule?.from);
      if (from.length === 0 || !from.every((peer) => onlyServer(peer, namespaceOf(policy), set)))
        hits.push(hit(policy, ["spec", "ingress", r, "from"], "admits clients other than the Server pods"));
    });
  }
  return hits;
}

/** How an ingress port entry reads in a message. */
function portText(port: unknown, range: { from: number; to: number }): string {
  if (port === undefined || port === null) return "every port";
  if (range.from !== range.to) return `ports ${range.from}-${range.to}`;
  return typeof port === "string" ? `port ${port} (${range.from})` : `port ${range.from}`;
}

/** CS-11: each ingress port of the policies isolating a Server pod is its TLS port, a named port resolved against the pod's containers. */
export function serverIngressPortHits(pod: PodRef, policies: readonly K8sObject[], tlsPort: number): RuleHit[] {
  const hits: RuleHit[] = [];
  const containers = namedPortContainers(pod.spec);
  for (const policy of policies.filter((p) => isolates(p, "Ingress"))) {
    list<NetworkPolicyIngressRule>(dig(policy, ["spec", "ingress"])).forEach((rule, r) => {
      const ports = list<Record<string, unknown>>(rule?.ports);
      if (ports.length === 0) hits.push(hit(policy, ["spec", "ingress", r], "an ingress rule without ports admits every port"));
      ports.forEach((p, i) => {
        const range = policyPortRange(p, containers);
        // A named port the Server pod does not declare opens nothing on it.
        if (range === undefined || (range.from === tlsPort && range.to === tlsPort)) return;
        const at = ["spec", "ingress", r, "ports", i, ...(p?.port === undefined ? [] : ["port"])];
        hits.push(hit(policy, at, `ingress on ${portText(p?.port, range)}, not the TLS port ${tlsPort}`));
      });
    });
  }
  return hits;
}
