// What kube-apiserver refuses beyond the OpenAPI schema in RBAC objects, PodDisruptionBudgets,
// PriorityClasses, ConfigMaps and Secrets (k8s.io/kubernetes/pkg/apis/rbac/validation,
// pkg/apis/policy/validation, pkg/apis/scheduling/validation, pkg/apis/core/validation ValidateConfigMap, ValidateSecret).
import { byteLength, isConfigMapKey, isDNS1123Subdomain, isPathSegmentName, isValidPercent } from "../k8s/validation.ts";
import { type Ctx, checkLabelSelector, int, isRecord, list, type Path, RULES, report, show, str } from "./kube-validate-meta.ts";

type Obj = Record<string, unknown>;
const RBAC_GROUP = "rbac.authorization.k8s.io";
const nonEmpty = (v: unknown) => list(v).length > 0;

/** ValidatePolicyRule: non-resource URLs only in a ClusterRole and alone; a resource rule names apiGroups and resources. */
function checkPolicyRules(object: Obj, namespaced: boolean, ctx: Ctx): void {
  list(object.rules).forEach((rule, i) => {
    if (!isRecord(rule)) return;
    const at = ["rules", i];
    if (nonEmpty(rule.nonResourceURLs)) {
      if (namespaced) report(ctx, [...at, "nonResourceURLs"], "a Role's rules cannot name nonResourceURLs: only a ClusterRole's can");
      if (nonEmpty(rule.apiGroups) || nonEmpty(rule.resources) || nonEmpty(rule.resourceNames))
        report(ctx, [...at, "nonResourceURLs"], "a rule cannot name both nonResourceURLs and apiGroups, resources or resourceNames");
      return;
    }
    if (!nonEmpty(rule.apiGroups)) report(ctx, [...at, "apiGroups"], `a resource rule needs at least one api group ("" is the core group)`);
    if (!nonEmpty(rule.resources)) report(ctx, [...at, "resources"], "a resource rule needs at least one resource");
  });
}

/** ValidateRoleBinding, ValidateClusterRoleBinding after SetDefaults_RoleBinding and SetDefaults_Subject (User and Group default to the RBAC group). */
function checkBinding(object: Obj, namespaced: boolean, ctx: Ctx): void {
  const roleRef = isRecord(object.roleRef) ? object.roleRef : {};
  const group = str(roleRef.apiGroup) || RBAC_GROUP;
  if (group !== RBAC_GROUP) report(ctx, ["roleRef", "apiGroup"], `roleRef.apiGroup must be ${RBAC_GROUP}, not ${show(group)}`);
  const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
  const kind = str(roleRef.kind);
  if (kind !== undefined && !kinds.includes(kind)) report(ctx, ["roleRef", "kind"], `a ${object.kind} refers to ${kinds.join(" or ")}, not ${show(kind)}`);
  const name = str(roleRef.name);
  if (name === "") report(ctx, ["roleRef", "name"], "roleRef needs the name of the role");
  else if (name !== undefined && isPathSegmentName(name).length > 0)
    report(ctx, ["roleRef", "name"], `${show(name)} is not a valid role name: ${RULES.segment}`);
  list(object.subjects).forEach((subject, i) => {
    if (isRecord(subject)) checkSubject(subject, namespaced, ["subjects", i], ctx);
  });
}

// rbac validation.go ValidateRoleBindingSubject
function checkSubject(subject: Obj, namespaced: boolean, at: Path, ctx: Ctx): void {
  const name = str(subject.name);
  if (name === "") report(ctx, [...at, "name"], "a subject needs a name");
  const kind = str(subject.kind);
  const apiGroup = str(subject.apiGroup) ?? "";
  if (kind === "ServiceAccount") {
    if (name && isDNS1123Subdomain(name).length > 0) report(ctx, [...at, "name"], `${show(name)} is not a valid ServiceAccount name: ${RULES.subdomain}`);
    if (apiGroup !== "") report(ctx, [...at, "apiGroup"], `a ServiceAccount subject's apiGroup is "" (the core group), not ${show(apiGroup)}`);
    if (!namespaced && !str(subject.namespace)) report(ctx, [...at, "namespace"], "a ClusterRoleBinding's ServiceAccount subject needs its namespace");
  } else if (kind === "User" || kind === "Group") {
    if ((apiGroup || RBAC_GROUP) !== RBAC_GROUP) report(ctx, [...at, "apiGroup"], `a ${kind} subject's apiGroup is ${RBAC_GROUP}, not ${show(apiGroup)}`);
  } else if (kind !== undefined) report(ctx, [...at, "kind"], `${show(kind)} is not a subject kind: use ServiceAccount, User or Group`);
}

/** The RBAC kinds: rules, aggregation rules, role references and subjects. */
export function checkRbac(object: Obj, ctx: Ctx): void {
  const kind = String(object.kind);
  if (kind === "Role" || kind === "ClusterRole") checkPolicyRules(object, kind === "Role", ctx);
  if (kind === "RoleBinding" || kind === "ClusterRoleBinding") checkBinding(object, kind === "RoleBinding", ctx);
  if (kind === "ClusterRole" && isRecord(object.aggregationRule)) {
    const selectors = list(object.aggregationRule.clusterRoleSelectors);
    if (selectors.length === 0) report(ctx, ["aggregationRule", "clusterRoleSelectors"], "an aggregationRule needs at least one clusterRoleSelector");
    selectors.forEach((selector, i) => void checkLabelSelector(selector, ["aggregationRule", "clusterRoleSelectors", i], ctx));
  }
}

/** ValidatePodDisruptionBudgetSpec: minAvailable or maxUnavailable, each an integer or a percentage up to 100%. */
export function checkPodDisruptionBudget(object: Obj, ctx: Ctx): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  const given = (k: string) => spec[k] !== undefined && spec[k] !== null;
  if (given("minAvailable") && given("maxUnavailable")) report(ctx, ["spec"], "minAvailable and maxUnavailable cannot both be set");
  for (const field of ["minAvailable", "maxUnavailable"]) {
    const value = spec[field];
    if (typeof value === "number" && value < 0) report(ctx, ["spec", field], `${field} ${value} is negative: Kubernetes accepts 0 or more`);
    if (typeof value === "string" && isValidPercent(value).length > 0)
      report(ctx, ["spec", field], `${show(value)} is not an integer or a percentage such as "50%"`);
    else if (typeof value === "string" && Number(value.slice(0, -1)) > 100) report(ctx, ["spec", field], `${value} is more than 100%`);
  }
  checkLabelSelector(spec.selector, ["spec", "selector"], ctx);
}

/** scheduling/v1 systemPriorityClasses, and HighestUserDefinablePriority. */
const SYSTEM_CLASSES: Record<string, number> = { "system-node-critical": 2000001000, "system-cluster-critical": 2000000000 };
const HIGHEST_USER_PRIORITY = 1000000000;

/** ValidatePriorityClass: system- names are reserved for the two system classes; other values are at most one billion. */
export function checkPriorityClass(object: Obj, ctx: Ctx): void {
  const name = isRecord(object.metadata) ? (str(object.metadata.name) ?? "") : "";
  const value = int(object.value);
  if (name.startsWith("system-")) {
    const known = Object.hasOwn(SYSTEM_CLASSES, name) ? SYSTEM_CLASSES[name] : undefined;
    if (known === undefined)
      report(
        ctx,
        ["metadata", "name"],
        `${show(name)}: PriorityClass names starting with "system-" are reserved for system-node-critical and system-cluster-critical`,
      );
    // IsKnownSystemPriorityClass: ValidatePriorityClass reports its errors on the name.
    else if (value !== undefined && value !== known)
      report(ctx, ["metadata", "name"], `${name} is reserved for the system class of value ${known}, not ${value}`);
    else if (object.globalDefault === true) report(ctx, ["metadata", "name"], `${name} is reserved for a system class that is not the global default`);
  } else if (value !== undefined && value > HIGHEST_USER_PRIORITY)
    report(ctx, ["value"], `value ${value} is above ${HIGHEST_USER_PRIORITY}: higher priorities are reserved for system classes`);
}

/** core MaxSecretSize: a ConfigMap's or Secret's data, in bytes. */
const MAX_DATA = 1024 * 1024;

/** The bytes base64 text decodes to (Go's decoder skips \r and \n), or undefined when it is not base64. */
function decodedLength(text: string): number | undefined {
  let n = 0;
  let padding = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) continue;
    if (c === 61) padding++;
    else if (padding > 0 || !((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47)) return undefined;
    n++;
  }
  return n % 4 === 0 && padding <= 2 ? (n / 4) * 3 - padding : undefined;
}

function checkKeys(keys: Iterable<[string, Path]>, ctx: Ctx): void {
  for (const [key, path] of keys)
    if (isConfigMapKey(key).length > 0)
      report(ctx, path, `${show(key)} is not a valid key: letters, digits, '-', '_' and '.', at most 253 characters, not '.', '..' or starting with '..'`);
}

/** ValidateConfigMap: keys, no key in both data and binaryData, at most 1 MiB of values. */
export function checkConfigMap(object: Obj, ctx: Ctx): void {
  const data = isRecord(object.data) ? object.data : {};
  const binary = isRecord(object.binaryData) ? object.binaryData : {};
  checkKeys(
    Object.keys(data).map((k) => [k, ["data", k]]),
    ctx,
  );
  checkKeys(
    Object.keys(binary).map((k) => [k, ["binaryData", k]]),
    ctx,
  );
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    if (Object.hasOwn(binary, key)) report(ctx, ["data", key], `key ${show(key)} is in both data and binaryData`);
    if (typeof value === "string") total += byteLength(value);
  }
  for (const value of Object.values(binary)) total += (typeof value === "string" ? decodedLength(value) : 0) ?? 0;
  if (total > MAX_DATA) report(ctx, [], `the ConfigMap's values take ${total} bytes: Kubernetes accepts at most ${MAX_DATA} (1 MiB)`);
}

/** The keys each Secret type needs (ValidateSecret); basic-auth needs one of its two. */
const SECRET_KEYS: Record<string, string[]> = {
  "kubernetes.io/dockercfg": [".dockercfg"],
  "kubernetes.io/dockerconfigjson": [".dockerconfigjson"],
  "kubernetes.io/tls": ["tls.crt", "tls.key"],
};

/** ValidateSecret, on data with stringData merged in as the v1 conversion does: keys, at most 1 MiB, and each type's keys. */
export function checkSecret(object: Obj, ctx: Ctx): void {
  const data = isRecord(object.data) ? object.data : {};
  const stringData = isRecord(object.stringData) ? object.stringData : {};
  const sizes = new Map<string, number>();
  for (const [key, value] of Object.entries(data)) sizes.set(key, (typeof value === "string" ? decodedLength(value) : 0) ?? 0);
  for (const [key, value] of Object.entries(stringData)) sizes.set(key, typeof value === "string" ? byteLength(value) : 0);
  checkKeys(
    [...sizes.keys()].map((k) => [k, [Object.hasOwn(stringData, k) ? "stringData" : "data", k]]),
    ctx,
  );
  const total = [...sizes.values()].reduce((a, b) => a + b, 0);
  if (total > MAX_DATA) report(ctx, ["data"], `the Secret's data take ${total} bytes: Kubernetes accepts at most ${MAX_DATA} (1 MiB)`);
  const type = str(object.type) ?? "Opaque";
  for (const key of Object.hasOwn(SECRET_KEYS, type) ? SECRET_KEYS[type] : [])
    if (!sizes.has(key)) report(ctx, ["data", key], `a ${type} Secret needs the key ${show(key)} in data or stringData`);
  if (type === "kubernetes.io/basic-auth" && !sizes.has("username") && !sizes.has("password"))
    report(ctx, ["data"], "a kubernetes.io/basic-auth Secret needs username or password in data or stringData");
  if (type === "kubernetes.io/ssh-auth" && !sizes.get("ssh-privatekey"))
    report(ctx, ["data", "ssh-privatekey"], "a kubernetes.io/ssh-auth Secret needs a non-empty ssh-privatekey");
  const annotations = isRecord(object.metadata) && isRecord(object.metadata.annotations) ? object.metadata.annotations : {};
  if (type === "kubernetes.io/service-account-token" && !str(annotations["kubernetes.io/service-account.name"]))
    report(
      ctx,
      ["metadata", "annotations", "kubernetes.io/service-account.name"],
      "a service-account-token Secret needs the annotation kubernetes.io/service-account.name",
    );
}
