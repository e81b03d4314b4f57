// What kube-apiserver refuses in an object's metadata beyond the OpenAPI schema: names by kind
// (each group's ValidateObjectMeta nameFn), namespace, labels, annotations, finalizers, and label
// selectors (k8s.io/apimachinery/pkg/api/validation/objectmeta.go, pkg/apis/meta/v1/validation).
import {
  byteLength,
  isDNS1123Label,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validatePathSegmentName,
} from "../k8s/validation.ts";

export type Path = (string | number)[];
export interface Problem {
  path: Path;
  message: string;
}

/** One object's walk: the Kubernetes minor version (undefined when it cannot be told) and what was found. */
export interface Ctx {
  minor: number | undefined;
  problems: Problem[];
}

export const report = (ctx: Ctx, path: Path, message: string) => void ctx.problems.push({ path, message });
export const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
export const int = (v: unknown): number | undefined => (typeof v === "number" && Number.isInteger(v) ? v : undefined);
/** Whether the version is known and at least 1.`minor`. */
export const atLeast = (ctx: Ctx, minor: number) => ctx.minor !== undefined && ctx.minor >= minor;

/** A value as the message shows it: JSON, cut short past 64 characters. */
export function show(value: unknown): string {
  if (typeof value === "string" && value.length > 64) return `${JSON.stringify(value.slice(0, 64))}… (${value.length} characters)`;
  return JSON.stringify(value) ?? String(value);
}

export const RULES = {
  subdomain: "a lowercase RFC 1123 subdomain (lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters)",
  label: "a lowercase RFC 1123 label (lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)",
  dns1035: "a DNS-1035 label (lower-case letters, digits and '-', starting with a letter and ending with a letter or digit, at most 63 characters)",
  segment: "a name other than '.' and '..', without '/' or '%'",
  qualified:
    "a qualified name: an optional DNS subdomain prefix (at most 253 characters) and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
  labelValue: "empty, or at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
} as const;

type NameRule = "subdomain" | "label" | "dns1035" | "segment";

/** The name function of a kind: its rule for a version, or the CRD's `<plural>.<group>`. */
interface KindInfo {
  namespaced: boolean;
  rule: (ctx: Ctx) => NameRule;
  crd?: true;
}

const fixed =
  (rule: NameRule) =>
  (_ctx: Ctx): NameRule =>
    rule;
const sub = (namespaced: boolean): KindInfo => ({ namespaced, rule: fixed("subdomain") });

/**
 * kind (group/Kind) → the nameFn its validation.go passes to ValidateObjectMeta. Kinds whose own
 * validation checks no name (PodDisruptionBudget, CertificateSigningRequest) get rest.BeforeCreate's
 * path.ValidatePathSegmentName.
 */
const KINDS: Record<string, KindInfo> = {
  // pkg/apis/core/validation: ValidatePodName, ValidatePodTemplate, ValidateReplicationController (validate.LongName),
  // ValidateServiceCreate, ValidateNamespaceName, ValidateServiceAccountName, ValidateConfigMapName, ValidateSecretName,
  // ValidatePersistentVolumeName, ValidateLimitRangeName, ValidateResourceQuotaName, ValidateEndpointsName, ValidateNodeName
  "/Pod": sub(true),
  "/PodTemplate": sub(true),
  "/ReplicationController": sub(true),
  // NameIsDNS1035Label, or NameIsDNSLabel with RelaxedServiceNameValidation (beta, on from 1.36)
  "/Service": { namespaced: true, rule: (ctx) => (ctx.minor !== undefined && ctx.minor <= 35 ? "dns1035" : "label") },
  "/Namespace": { namespaced: false, rule: fixed("label") },
  "/ServiceAccount": sub(true),
  "/ConfigMap": sub(true),
  "/Secret": sub(true),
  "/PersistentVolumeClaim": sub(true),
  "/PersistentVolume": sub(false),
  "/LimitRange": sub(true),
  "/ResourceQuota": sub(true),
  "/Endpoints": sub(true),
  "/Node": sub(false),
  // pkg/apis/apps/validation: ValidateDeploymentName, ValidateDaemonSetName, ValidateReplicaSetName, ValidateControllerRevisionName;
  // ValidateStatefulSetName is NameIsDNSLabel from 1.27, NameIsDNSSubdomain before
  "apps/Deployment": sub(true),
  "apps/DaemonSet": sub(true),
  "apps/ReplicaSet": sub(true),
  "apps/ControllerRevision": sub(true),
  "apps/StatefulSet": { namespaced: true, rule: (ctx) => (ctx.minor !== undefined && ctx.minor <= 26 ? "subdomain" : "label") },
  // pkg/apis/batch/validation: ValidateJob, ValidateCronJobCreate (NameIsDNSSubdomain)
  "batch/Job": sub(true),
  "batch/CronJob": sub(true),
  // pkg/apis/autoscaling/validation: ValidateHorizontalPodAutoscalerName
  "autoscaling/HorizontalPodAutoscaler": sub(true),
  // pkg/apis/policy/validation: ValidatePodDisruptionBudget checks no name
  "policy/PodDisruptionBudget": { namespaced: true, rule: fixed("segment") },
  // pkg/apis/networking/validation: ValidateNetworkPolicyName, ValidateIngressName, ValidateIngressClassName
  "networking.k8s.io/NetworkPolicy": sub(true),
  "networking.k8s.io/Ingress": sub(true),
  "networking.k8s.io/IngressClass": sub(false),
  // pkg/apis/rbac/validation: ValidateRBACName (path.IsValidPathSegmentName)
  "rbac.authorization.k8s.io/Role": { namespaced: true, rule: fixed("segment") },
  "rbac.authorization.k8s.io/RoleBinding": { namespaced: true, rule: fixed("segment") },
  "rbac.authorization.k8s.io/ClusterRole": { namespaced: false, rule: fixed("segment") },
  "rbac.authorization.k8s.io/ClusterRoleBinding": { namespaced: false, rule: fixed("segment") },
  // pkg/apis/scheduling/validation: ValidatePriorityClass
  "scheduling.k8s.io/PriorityClass": sub(false),
  // pkg/apis/storage/validation: ValidateClassName, ValidateCSIDriverName, ValidateNodeName, ValidateStorageCapacityName
  "storage.k8s.io/StorageClass": sub(false),
  "storage.k8s.io/VolumeAttachment": sub(false),
  "storage.k8s.io/VolumeAttributesClass": sub(false),
  "storage.k8s.io/CSIDriver": sub(false),
  "storage.k8s.io/CSINode": sub(false),
  "storage.k8s.io/CSIStorageCapacity": sub(true),
  // pkg/apis/admissionregistration/validation: NameIsDNSSubdomain for each
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration": sub(false),
  "admissionregistration.k8s.io/MutatingWebhookConfiguration": sub(false),
  "admissionregistration.k8s.io/ValidatingAdmissionPolicy": sub(false),
  "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": sub(false),
  "admissionregistration.k8s.io/MutatingAdmissionPolicy": sub(false),
  "admissionregistration.k8s.io/MutatingAdmissionPolicyBinding": sub(false),
  // pkg/apis/node/validation: ValidateRuntimeClass
  "node.k8s.io/RuntimeClass": sub(false),
  // pkg/apis/coordination/validation: ValidateLease
  "coordination.k8s.io/Lease": sub(true),
  // pkg/apis/discovery/validation: ValidateEndpointSliceName
  "discovery.k8s.io/EndpointSlice": sub(true),
  // pkg/apis/flowcontrol/validation: ValidateFlowSchemaName, ValidatePriorityLevelConfigurationName
  "flowcontrol.apiserver.k8s.io/FlowSchema": sub(false),
  "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration": sub(false),
  // k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation: ValidateCustomResourceDefinition
  "apiextensions.k8s.io/CustomResourceDefinition": { namespaced: false, rule: fixed("subdomain"), crd: true },
  // pkg/apis/certificates/validation: ValidateCertificateRequestName checks nothing
  "certificates.k8s.io/CertificateSigningRequest": { namespaced: false, rule: fixed("segment") },
};

const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "");

/** The kind's entry, when it is a built-in kind whose name validation was read from upstream. */
export function kindInfo(apiVersion: unknown, kind: unknown): KindInfo | undefined {
  if (typeof apiVersion !== "string" || typeof kind !== "string") return undefined;
  const key = `${groupOf(apiVersion)}/${kind}`;
  return Object.hasOwn(KINDS, key) ? KINDS[key] : undefined;
}

// k8s.io/apimachinery/pkg/api/validation/generic.go: the ValidateNameFunc behind each rule
function nameErrors(rule: NameRule, name: string, prefix: boolean): string[] {
  if (rule === "segment") return validatePathSegmentName(name, prefix);
  const fn = rule === "subdomain" ? nameIsDNSSubdomain : rule === "label" ? nameIsDNSLabel : nameIsDNS1035Label;
  return fn(name, prefix);
}

const article = (kind: string) => (/^[AEIOU]/.test(kind) ? `an ${kind}` : `a ${kind}`);

/** objectmeta.go ValidateObjectMetaAccessor's name, generateName and namespace, by the kind's nameFn. */
export function checkNames(object: Record<string, unknown>, info: KindInfo, ctx: Ctx): void {
  const meta = isRecord(object.metadata) ? object.metadata : {};
  // A name of the wrong type is the schema walk's.
  if (meta.name === undefined || meta.name === null || typeof meta.name === "string") checkName(object, meta, info, ctx);
  const namespace = str(meta.namespace) ?? "";
  // rest.BeforeCreate clears a cluster-scoped object's namespace; a namespaced one's must be a label.
  if (info.namespaced && namespace !== "" && isDNS1123Label(namespace).length > 0)
    report(ctx, ["metadata", "namespace"], `${show(namespace)} is not a valid namespace: ${RULES.label}`);
}

function checkName(object: Record<string, unknown>, meta: Record<string, unknown>, info: KindInfo, ctx: Ctx): void {
  const kind = String(object.kind);
  const name = str(meta.name) ?? "";
  const generateName = str(meta.generateName) ?? "";
  const rule = info.rule(ctx);
  // ValidateReplicationController validates the generated name only from 1.35 (ValidateObjectMetaWithOpts): beside a
  // name, its prefix then meets only rest.BeforeCreate's path.ValidatePathSegmentName.
  const rcFrom135 = kind === "ReplicationController" && (ctx.minor === undefined || ctx.minor >= 35);
  const prefixRule = rcFrom135 && name !== "" ? "segment" : rule;
  if (generateName !== "" && nameErrors(prefixRule, generateName, true).length > 0)
    report(ctx, ["metadata", "generateName"], `${show(generateName)} is not a valid generateName for ${article(kind)}: names are ${RULES[prefixRule]}`);
  if (name === "" && generateName === "") report(ctx, ["metadata", "name"], `${article(kind)} needs metadata.name (or metadata.generateName)`);
  else if (name !== "" && nameErrors(rule, name, false).length > 0)
    report(ctx, ["metadata", "name"], `${show(name)} is not a valid name for ${article(kind)}: ${RULES[rule]}`);
  if (info.crd && name !== "") checkCrdName(object, name, ctx);
}

// apiextensions validation.go ValidateCustomResourceDefinition: the name must be spec.names.plural+"."+spec.group
function checkCrdName(object: Record<string, unknown>, name: string, ctx: Ctx): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  const plural = isRecord(spec.names) ? str(spec.names.plural) : undefined;
  const group = str(spec.group);
  if (plural === undefined || group === undefined) return;
  const required = `${plural}.${group}`;
  if (name !== required)
    report(
      ctx,
      ["metadata", "name"],
      `${show(name)} is not a valid name for a CustomResourceDefinition: it must be spec.names.plural + "." + spec.group (${show(required)})`,
    );
}

/** v1validation.ValidateLabels: qualified-name keys and label values. */
export function checkLabels(labels: unknown, path: Path, ctx: Ctx, what = "label"): void {
  if (!isRecord(labels)) return;
  for (const [key, value] of Object.entries(labels)) {
    if (isQualifiedName(key).length > 0) report(ctx, [...path, key], `${show(key)} is not a valid ${what} key: ${RULES.qualified}`);
    if (typeof value === "string" && isValidLabelValue(value).length > 0)
      report(ctx, [...path, key], `${show(value)} is not a valid ${what} value: ${RULES.labelValue}`);
  }
}

/** Go's strings.ToLower where it matters here: ASCII, and the two runes it lowers to ASCII (U+0130 İ, U+212A Kelvin). */
function goLower(key: string): string {
  let out = "";
  for (const c of key) out += c === "\u0130" ? "i" : c === "\u212a" ? "k" : c >= "A" && c <= "Z" ? c.toLowerCase() : c;
  return out;
}

/** objectmeta.go TotalAnnotationSizeLimitB. */
export const ANNOTATION_LIMIT = 256 * 1024;

/** objectmeta.go ValidateAnnotations: keys are qualified names once lowercased; keys and values take at most 256 KiB (bytes). */
export function checkAnnotations(annotations: unknown, path: Path, ctx: Ctx): void {
  if (!isRecord(annotations)) return;
  let total = 0;
  for (const [key, value] of Object.entries(annotations)) {
    if (isQualifiedName(goLower(key)).length > 0) report(ctx, [...path, key], `${show(key)} is not a valid annotation key: ${RULES.qualified} (any case)`);
    total += byteLength(key) + (typeof value === "string" ? byteLength(value) : 0);
  }
  if (total > ANNOTATION_LIMIT)
    report(
      ctx,
      path,
      `annotations take ${total} bytes (keys and values): Kubernetes accepts at most ${ANNOTATION_LIMIT} bytes (256 KiB) of annotations on an object`,
    );
}

const JOB_TRACKING = "batch.kubernetes.io/job-tracking";

/** A Job's annotations as validated: its strategy's PrepareForCreate sets batch.kubernetes.io/job-tracking in 1.25-1.27 and drops it in 1.24. */
function jobAnnotations(object: Record<string, unknown>, annotations: unknown, ctx: Ctx): unknown {
  if (object.kind !== "Job" || ctx.minor === undefined || ctx.minor > 27 || (annotations !== undefined && !isRecord(annotations))) return annotations;
  const adjusted: Record<string, unknown> = { ...(annotations ?? {}) };
  if (ctx.minor >= 25) adjusted[JOB_TRACKING] = "";
  else delete adjusted[JOB_TRACKING];
  return adjusted;
}

/** The metadata every built-in kind shares: names, labels, annotations and finalizers (objectmeta.go ValidateFinalizers). */
export function checkMetadata(object: Record<string, unknown>, info: KindInfo, ctx: Ctx): void {
  checkNames(object, info, ctx);
  const meta = isRecord(object.metadata) ? object.metadata : {};
  checkLabels(meta.labels, ["metadata", "labels"], ctx);
  checkAnnotations(jobAnnotations(object, meta.annotations, ctx), ["metadata", "annotations"], ctx);
  list(meta.finalizers).forEach((finalizer, i) => {
    if (typeof finalizer === "string" && isQualifiedName(finalizer).length > 0)
      report(ctx, ["metadata", "finalizers", i], `${show(finalizer)} is not a valid finalizer: ${RULES.qualified}`);
  });
}

const OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist"];

/**
 * v1validation.ValidateLabelSelector: matchLabels as labels, each matchExpressions entry's key,
 * operator and values. Whether the selector is valid (metav1.LabelSelectorAsSelector would take it).
 */
export function checkLabelSelector(selector: unknown, path: Path, ctx: Ctx): boolean {
  if (!isRecord(selector)) return true;
  const before = ctx.problems.length;
  checkLabels(selector.matchLabels, [...path, "matchLabels"], ctx, "selector label");
  list(selector.matchExpressions).forEach((expression, i) => {
    if (!isRecord(expression)) return;
    const at: Path = [...path, "matchExpressions", i];
    const operator = str(expression.operator);
    const values = list(expression.values);
    if (operator === "In" || operator === "NotIn") {
      if (values.length === 0) report(ctx, [...at, "values"], `operator ${operator} needs at least one value`);
    } else if (operator === "Exists" || operator === "DoesNotExist") {
      if (values.length > 0) report(ctx, [...at, "values"], `operator ${operator} takes no values`);
    } else if (operator !== undefined) report(ctx, [...at, "operator"], `${show(operator)} is not a selector operator: use ${OPERATORS.join(", ")}`);
    const key = str(expression.key);
    if (key !== undefined && isQualifiedName(key).length > 0) report(ctx, [...at, "key"], `${show(key)} is not a valid label key: ${RULES.qualified}`);
    values.forEach((value, j) => {
      if (typeof value === "string" && isValidLabelValue(value).length > 0)
        report(ctx, [...at, "values", j], `${show(value)} is not a valid label value: ${RULES.labelValue}`);
    });
  });
  return ctx.problems.length === before;
}
