// What kube-apiserver refuses in workloads beyond the OpenAPI schema: selectors against their
// template, restart policies, rollout strategies (k8s.io/kubernetes/pkg/apis/apps/validation,
// pkg/apis/batch/validation, pkg/apis/core/validation ValidateReplicationController and ValidatePodCreate).
import { checkSchedule } from "./kube-validate-cron.ts";
import { checkVolumeClaimTemplates } from "./kube-validate-storage.ts";
import { selectsLabels } from "../k8s/selector.ts";
import { isDNS1123Label, isValidLabelValue, isValidPercent } from "../k8s/validation.ts";
import { atLeast, type Ctx, checkLabelSelector, int, isRecord, list, type Path, RULES, report, show, str } from "./kube-validate-meta.ts";
import { checkAlwaysRestarts, checkPodSpec, checkPodTemplate, restartPolicyOf } from "./kube-validate-pod.ts";

type Obj = Record<string, unknown>;
const specOf = (object: Obj): Obj => (isRecord(object.spec) ? object.spec : {});
const templateSpec = (template: unknown): unknown => (isRecord(template) ? template.spec : undefined);

function stringLabels(template: unknown): Record<string, string> {
  const labels = isRecord(template) && isRecord(template.metadata) ? template.metadata.labels : undefined;
  return Object.fromEntries(Object.entries(isRecord(labels) ? labels : {}).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** apimachinery ValidateNonnegativeField for each named integer field. */
function checkNonNegative(spec: Obj, fields: readonly string[], path: Path, ctx: Ctx): void {
  for (const field of fields) {
    const n = int(spec[field]);
    if (n !== undefined && n < 0) report(ctx, [...path, field], `${field} ${n} is negative: Kubernetes accepts 0 or more`);
  }
}

/** ValidateDeploymentSpec, ValidateReplicaSetSpec, ValidateStatefulSetSpec, ValidateDaemonSetSpec: a valid, non-empty selector that selects the template. */
function checkSelector(spec: Obj, kind: string, ctx: Ctx): void {
  const selector = spec.selector;
  if (!isRecord(selector)) return;
  const valid = checkLabelSelector(selector, ["spec", "selector"], ctx);
  if (list(selector.matchExpressions).length === 0 && (!isRecord(selector.matchLabels) || Object.keys(selector.matchLabels).length === 0)) {
    report(ctx, ["spec", "selector"], `a ${kind} needs a selector with matchLabels or matchExpressions: an empty selector would select every pod`);
    return;
  }
  if (valid && !selectsLabels(selector, stringLabels(spec.template)))
    report(ctx, ["spec", "template", "metadata", "labels"], `spec.selector does not select the template's labels: a ${kind}'s pods must match its selector`);
}

/** appsvalidation.getIntOrPercentValue: a percentage's number, an integer, or strconv.Atoi of other text (0 when it fails). */
function intOrPercentValue(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value !== "string") return 0;
  const text = isValidPercent(value).length === 0 ? value.slice(0, -1) : value;
  const digits = text[0] === "+" || text[0] === "-" ? text.slice(1) : text;
  if (digits.length === 0 || [...digits].some((c) => c < "0" || c > "9")) return 0;
  // Past int64, Atoi's error still yields its largest value: more than 100 and not 0 either way.
  return (text[0] === "-" ? -1 : 1) * Number(digits);
}

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
function checkIntOrPercent(value: unknown, path: Path, ctx: Ctx, upTo100: boolean): void {
  if (typeof value === "string" && isValidPercent(value).length > 0) report(ctx, path, `${show(value)} is not an integer or a percentage such as "25%"`);
  else if (typeof value === "number" && value < 0) report(ctx, path, `${value} is negative: Kubernetes accepts 0 or more`);
  else if (upTo100 && typeof value === "string" && intOrPercentValue(value) > 100) report(ctx, path, `${value} is more than 100%`);
}

/** ValidateDeploymentStrategy after SetDefaults_Deployment (RollingUpdate, 25% and 25%), and progressDeadlineSeconds (600) over minReadySeconds. */
function checkDeploymentStrategy(spec: Obj, ctx: Ctx): void {
  const strategy = isRecord(spec.strategy) ? spec.strategy : {};
  const type = str(strategy.type) || "RollingUpdate";
  const path = ["spec", "strategy"];
  if (type === "Recreate" && isRecord(strategy.rollingUpdate))
    report(ctx, [...path, "rollingUpdate"], "rollingUpdate cannot be set when the strategy type is Recreate");
  else if (type === "RollingUpdate") {
    const rolling = isRecord(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
    const maxUnavailable = rolling.maxUnavailable ?? "25%";
    const maxSurge = rolling.maxSurge ?? "25%";
    checkIntOrPercent(maxUnavailable, [...path, "rollingUpdate", "maxUnavailable"], ctx, true);
    checkIntOrPercent(maxSurge, [...path, "rollingUpdate", "maxSurge"], ctx, false);
    if (intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0)
      report(ctx, [...path, "rollingUpdate", "maxUnavailable"], "maxUnavailable and maxSurge cannot both be 0: a rollout could never make progress");
  } else if (type !== "Recreate") report(ctx, [...path, "type"], `${show(type)} is not a Deployment strategy: use RollingUpdate or Recreate`);
  const minReady = int(spec.minReadySeconds) ?? 0;
  const deadline = int(spec.progressDeadlineSeconds) ?? 600;
  if (deadline <= minReady)
    report(
      ctx,
      ["spec", "progressDeadlineSeconds"],
      `progressDeadlineSeconds (${deadline}${spec.progressDeadlineSeconds === undefined ? ", the default" : ""}) must be greater than minReadySeconds (${minReady})`,
    );
}

/** ValidateDaemonSetUpdateStrategy after SetDefaults_DaemonSet (RollingUpdate, maxUnavailable 1, maxSurge 0): exactly one of them non-zero. */
function checkDaemonSetStrategy(spec: Obj, ctx: Ctx): void {
  const strategy = isRecord(spec.updateStrategy) ? spec.updateStrategy : {};
  const type = str(strategy.type) || "RollingUpdate";
  const path = ["spec", "updateStrategy"];
  if (type === "OnDelete") return;
  if (type !== "RollingUpdate") {
    report(ctx, [...path, "type"], `${show(type)} is not a DaemonSet update strategy: use RollingUpdate or OnDelete`);
    return;
  }
  const rolling = isRecord(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
  const maxUnavailable = rolling.maxUnavailable ?? 1;
  const maxSurge = rolling.maxSurge ?? 0;
  checkIntOrPercent(maxUnavailable, [...path, "rollingUpdate", "maxUnavailable"], ctx, true);
  checkIntOrPercent(maxSurge, [...path, "rollingUpdate", "maxSurge"], ctx, true);
  const unavailable = intOrPercentValue(maxUnavailable) !== 0;
  const surge = intOrPercentValue(maxSurge) !== 0;
  if (unavailable && surge)
    report(
      ctx,
      [...path, "rollingUpdate", "maxSurge"],
      `maxSurge cannot be set while maxUnavailable is not 0${rolling.maxUnavailable === undefined ? " (it defaults to 1)" : ""}: set maxUnavailable to 0`,
    );
  if (!unavailable && !surge) report(ctx, [...path, "rollingUpdate", "maxUnavailable"], "maxUnavailable and maxSurge cannot both be 0");
}

/** ValidateStatefulSetSpec: policies, serviceName (a DNS-1123 label from 1.33), and volumeClaimTemplates as pod volumes. */
function checkStatefulSet(spec: Obj, ctx: Ctx): void {
  const policy = str(spec.podManagementPolicy);
  if (policy && policy !== "OrderedReady" && policy !== "Parallel")
    report(ctx, ["spec", "podManagementPolicy"], `${show(policy)} is not a pod management policy: use OrderedReady or Parallel`);
  const strategy = isRecord(spec.updateStrategy) ? spec.updateStrategy : {};
  const type = str(strategy.type) || "RollingUpdate";
  if (type === "OnDelete" && isRecord(strategy.rollingUpdate))
    report(ctx, ["spec", "updateStrategy", "rollingUpdate"], "rollingUpdate can be set only when the update strategy type is RollingUpdate");
  else if (type !== "OnDelete" && type !== "RollingUpdate")
    report(ctx, ["spec", "updateStrategy", "type"], `${show(type)} is not a StatefulSet update strategy: use RollingUpdate or OnDelete`);
  const partition = isRecord(strategy.rollingUpdate) ? int(strategy.rollingUpdate.partition) : undefined;
  if (partition !== undefined && partition < 0) report(ctx, ["spec", "updateStrategy", "rollingUpdate", "partition"], `partition ${partition} is negative`);
  const serviceName = str(spec.serviceName);
  if (serviceName && atLeast(ctx, 33) && isDNS1123Label(serviceName).length > 0)
    report(ctx, ["spec", "serviceName"], `${show(serviceName)} is not a valid serviceName: ${RULES.label}`);
  const statefulSet = { claims: spec.volumeClaimTemplates, path: ["spec", "volumeClaimTemplates"] };
  checkPodTemplate(spec.template, ["spec", "template"], ctx, { statefulSet });
  checkVolumeClaimTemplates(spec, ctx);
}

/** The integer fields each apps validation.go passes to ValidateNonnegativeField. */
const NON_NEGATIVE: Record<string, string[]> = {
  Deployment: ["replicas", "minReadySeconds", "revisionHistoryLimit", "progressDeadlineSeconds"],
  ReplicaSet: ["replicas", "minReadySeconds"],
  StatefulSet: ["replicas", "minReadySeconds"],
  DaemonSet: ["minReadySeconds", "revisionHistoryLimit"],
};

/** The apps workloads: ValidateDeployment, ValidateReplicaSet, ValidateStatefulSet, ValidateDaemonSet. */
export function checkAppsWorkload(object: Obj, ctx: Ctx): void {
  const kind = String(object.kind);
  const spec = specOf(object);
  checkNonNegative(spec, NON_NEGATIVE[kind] ?? [], ["spec"], ctx);
  checkSelector(spec, kind, ctx);
  if (kind === "StatefulSet") checkStatefulSet(spec, ctx);
  else checkPodTemplate(spec.template, ["spec", "template"], ctx);
  checkAlwaysRestarts(templateSpec(spec.template), ["spec", "template", "spec"], kind, ctx);
  if (kind === "Deployment") checkDeploymentStrategy(spec, ctx);
  if (kind === "DaemonSet") checkDaemonSetStrategy(spec, ctx);
}

/** validateJobSpec: counts, and pods that restart OnFailure or Never (Never only with a podFailurePolicy, from 1.25). */
function checkJobSpec(spec: Obj, path: Path, ctx: Ctx): void {
  checkNonNegative(spec, ["parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished"], path, ctx);
  checkPodTemplate(spec.template, [...path, "template"], ctx);
  const policy = restartPolicyOf(templateSpec(spec.template));
  const at = [...path, "template", "spec", "restartPolicy"];
  if (policy === "Always") report(ctx, at, "a Job's pods need restartPolicy OnFailure or Never (unset means Always, which a Job refuses)");
  else if (typeof policy === "string" && policy !== "OnFailure" && policy !== "Never")
    report(ctx, at, `${show(policy)} is not a Job's restartPolicy: use OnFailure or Never`);
  else if (policy === "OnFailure" && isRecord(spec.podFailurePolicy) && atLeast(ctx, 25))
    report(ctx, at, "a Job with a podFailurePolicy needs restartPolicy Never");
}

/** ValidateJob: its spec, and an Indexed Job's last pod hostname (`<name>-<completions-1>`) as a DNS-1123 label. */
export function checkJob(object: Obj, ctx: Ctx): void {
  const spec = specOf(object);
  checkJobSpec(spec, ["spec"], ctx);
  const name = isRecord(object.metadata) ? str(object.metadata.name) : undefined;
  // generateSelector (pkg/registry/batch/job/strategy.go) labels the template job-name=NAME: a label value.
  if (name !== undefined && spec.manualSelector !== true && isValidLabelValue(name).length > 0)
    report(
      ctx,
      ["metadata", "name"],
      `a Job's name becomes its pods' job-name label, so it must be a valid label value: ${isValidLabelValue(name).join("; ")}`,
    );
  if (!name || spec.completionMode !== "Indexed") return;
  // SetDefaults_Job: with neither completions nor parallelism, completions is 1.
  const completions = int(spec.completions) ?? (spec.parallelism === undefined || spec.parallelism === null ? 1 : undefined);
  if (completions !== undefined && completions > 0 && isDNS1123Label(`${name}-${completions - 1}`).length > 0)
    report(
      ctx,
      ["metadata", "name"],
      `an Indexed Job's pods are named ${show(`${name}-${completions - 1}`)} at most, which is not a valid hostname: ${RULES.label}`,
    );
}

/** ValidateCronJobCreate: a name of at most 52 characters (the controller adds 11), and a job template without a selector. */
export function checkCronJob(object: Obj, ctx: Ctx): void {
  const name = isRecord(object.metadata) ? str(object.metadata.name) : undefined;
  if (name !== undefined && Buffer.byteLength(name) > 52)
    report(ctx, ["metadata", "name"], `a CronJob's name is at most 52 characters (its Jobs add 11), not ${Buffer.byteLength(name)}`);
  const spec = specOf(object);
  const jobTemplate = isRecord(spec.jobTemplate) ? spec.jobTemplate : {};
  const jobSpec = isRecord(jobTemplate.spec) ? jobTemplate.spec : {};
  const path = ["spec", "jobTemplate", "spec"];
  checkNonNegative(spec, ["startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit"], ["spec"], ctx);
  checkSchedule(spec, ctx);
  checkJobSpec(jobSpec, path, ctx);
  if (jobSpec.selector !== undefined && jobSpec.selector !== null)
    report(ctx, [...path, "selector"], "a CronJob's job template cannot set a selector: it is generated");
  if (jobSpec.manualSelector === true) report(ctx, [...path, "manualSelector"], "a CronJob's job template cannot set manualSelector");
}

/** ValidateReplicationControllerSpec after SetDefaults_ReplicationController (an empty selector takes the template's labels). */
export function checkReplicationController(object: Obj, ctx: Ctx): void {
  const spec = specOf(object);
  checkNonNegative(spec, ["replicas", "minReadySeconds"], ["spec"], ctx);
  const labels = stringLabels(spec.template);
  const template = isRecord(spec.template) ? spec.template : undefined;
  const hasLabels = isRecord(template?.metadata) && isRecord(template.metadata.labels);
  const given = isRecord(spec.selector) ? Object.entries(spec.selector).filter((e): e is [string, string] => typeof e[1] === "string") : [];
  const selector = given.length > 0 ? Object.fromEntries(given) : hasLabels ? labels : {};
  if (Object.keys(selector).length === 0) report(ctx, ["spec", "selector"], "a ReplicationController needs a selector (or template labels to default it from)");
  else if (template && !selectsLabels({ matchLabels: selector }, labels))
    report(
      ctx,
      ["spec", "template", "metadata", "labels"],
      "spec.selector does not select the template's labels: a ReplicationController's pods must match its selector",
    );
  checkPodTemplate(template, ["spec", "template"], ctx);
  if (template) checkAlwaysRestarts(template.spec, ["spec", "template", "spec"], "ReplicationController", ctx);
}

/** ValidatePodCreate: the pod spec, its restartPolicy among Always, OnFailure and Never. */
export function checkPod(object: Obj, ctx: Ctx): void {
  const spec = object.spec;
  checkPodSpec(spec, ["spec"], ctx, { isPod: true });
  const policy = restartPolicyOf(spec);
  if (typeof policy === "string" && !["Always", "OnFailure", "Never"].includes(policy))
    report(ctx, ["spec", "restartPolicy"], `${show(policy)} is not a restartPolicy: use Always, OnFailure or Never`);
}
