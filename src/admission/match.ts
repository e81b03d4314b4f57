// Which policies and bindings take a request, as the API server matches them.
import type { K8sObject } from "../k8s/objects.ts";
import { dig, isRecord, list, selects } from "../k8s/access.ts";

export interface AdmissionRequest {
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  group: string;
  version: string;
  resource: string;
  subResource?: string;
  kind: string;
  namespace: string;
  name: string;
  user: string;
  groups?: readonly string[];
  object?: unknown;
  oldObject?: unknown;
}

/** A request before anyone makes it: who asks is given apart. */
export type RequestShape = Omit<AdmissionRequest, "user" | "groups">;

/** The labels a namespaceSelector sees: the namespace's own and its name. */
export function namespaceLabels(namespaceObject: K8sObject, namespace: string): Record<string, string> {
  return { ...((namespaceObject.metadata?.labels as Record<string, string> | undefined) ?? {}), "kubernetes.io/metadata.name": namespace };
}

/** Whether a policy's (or binding's) match rules take a request. */
export function matchesRules(match: unknown, req: RequestShape, labels: Record<string, string>): boolean {
  if (match === undefined || match === null) return true;
  if (!isRecord(match)) return false;
  if (!selects(match.namespaceSelector ?? {}, labels)) return false;
  const objectSelector = match.objectSelector ?? {};
  const labelsOf = (o: unknown) => (isRecord(o) && isRecord(o.metadata) && isRecord(o.metadata.labels) ? (o.metadata.labels as Record<string, string>) : {});
  if (!selects(objectSelector, labelsOf(req.object)) && !selects(objectSelector, labelsOf(req.oldObject))) return false;
  const rules = match.resourceRules;
  // A binding's matchResources may leave resourceRules out (the policy's decide); a policy's may not.
  if (rules !== undefined && !list<Record<string, unknown>>(rules).some((rule) => ruleMatches(rule, req))) return false;
  return !list<Record<string, unknown>>(match.excludeResourceRules).some((rule) => ruleMatches(rule, req));
}

export function matchesPolicy(policy: K8sObject, req: RequestShape, labels: Record<string, string>): boolean {
  return matchesRules(dig(policy, ["spec", "matchConstraints"]), req, labels);
}

/** A policy that matches the request with a binding that denies. */
export function bindsToDeny(policy: K8sObject, bindings: readonly K8sObject[], req: RequestShape, labels: Record<string, string>): boolean {
  return (
    matchesPolicy(policy, req, labels) &&
    bindings.some((b) => list(dig(b, ["spec", "validationActions"])).includes("Deny") && matchesRules(dig(b, ["spec", "matchResources"]), req, labels))
  );
}

function ruleMatches(rule: Record<string, unknown>, req: RequestShape): boolean {
  const any = (field: string, value: string) => {
    const values = list<unknown>(rule?.[field]);
    return values.includes("*") || values.includes(value);
  };
  if (!isRecord(rule) || !any("apiGroups", req.group) || !any("apiVersions", req.version) || !any("operations", req.operation)) return false;
  if (rule.scope === "Cluster") return false; // every request judged here is namespaced
  const resources = list<unknown>(rule.resources);
  const sub = req.subResource ?? "";
  const hit =
    sub === ""
      ? resources.includes("*") || resources.includes(req.resource)
      : resources.some((r) => r === "*/*" || r === `${req.resource}/${sub}` || r === `${req.resource}/*` || r === `*/${sub}`);
  if (!hit) return false;
  const names = list<unknown>(rule.resourceNames);
  return names.length === 0 || names.includes(req.name);
}
