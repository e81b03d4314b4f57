// What kube-apiserver refuses beyond the OpenAPI schema in a HorizontalPodAutoscaler
// (pkg/apis/autoscaling/validation ValidateHorizontalPodAutoscaler, with the create options of
// pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go: minReplicas at least 1).
import { parseQuantity } from "../k8s/quantity.ts";
import { isDNS1123Label, isPathSegmentName } from "../k8s/validation.ts";
import { atLeast, type Ctx, int, isRecord, list, type Path, RULES, report, show, str } from "./kube-validate-meta.ts";

type Obj = Record<string, unknown>;

/** MaxPeriodSeconds and MaxStabilizationWindowSeconds of autoscaling/validation. */
const MAX_PERIOD = 1800;
const MAX_WINDOW = 3600;
// In the order validateMetricSpec looks at them: only the first one set is validated.
const SOURCES = ["object", "external", "pods", "resource", "containerResource"] as const;
const SOURCE_OF: Record<string, (typeof SOURCES)[number]> = {
  Object: "object",
  Pods: "pods",
  Resource: "resource",
  ContainerResource: "containerResource",
  External: "external",
};

/** autoscaling/v2 and v1 (whose targetCPUUtilizationPercentage converts to a Resource metric). */
export function checkHorizontalPodAutoscaler(object: Obj, ctx: Ctx): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  const min = int(spec.minReplicas);
  const max = int(spec.maxReplicas);
  if (min !== undefined && min < 1) report(ctx, ["spec", "minReplicas"], `minReplicas ${min}: it must be at least 1`);
  if (max !== undefined && max < 1) report(ctx, ["spec", "maxReplicas"], `maxReplicas ${max}: it must be at least 1`);
  else if (min !== undefined && max !== undefined && max < min) report(ctx, ["spec", "maxReplicas"], `maxReplicas ${max} is below minReplicas ${min}`);
  if (isRecord(spec.scaleTargetRef)) checkReference(spec.scaleTargetRef, ["spec", "scaleTargetRef"], false, ctx);
  const utilisation = int(spec.targetCPUUtilizationPercentage);
  if (utilisation !== undefined && utilisation < 1)
    report(ctx, ["spec", "targetCPUUtilizationPercentage"], `targetCPUUtilizationPercentage ${utilisation}: it must be greater than 0`);
  // autoscaling/v2beta1 (served up to 1.24) writes its targets in other fields: its metrics are not judged.
  if (object.apiVersion !== "autoscaling/v2beta1")
    list(spec.metrics).forEach((metric, i) => {
      if (isRecord(metric)) checkMetric(metric, ["spec", "metrics", i], ctx);
    });
  if (isRecord(spec.behavior))
    for (const direction of ["scaleUp", "scaleDown"]) {
      const rules = spec.behavior[direction];
      if (isRecord(rules)) checkScalingRules(rules, ["spec", "behavior", direction], ctx);
    }
}

/** ValidateCrossVersionObjectReference: a kind and a name as path segments, an apiVersion with a group (scaleTargetRef) or any. */
function checkReference(ref: Obj, path: Path, emptyGroup: boolean, ctx: Ctx): void {
  for (const field of ["kind", "name"]) {
    const value = str(ref[field]);
    if (value === "") report(ctx, [...path, field], `the reference needs its ${field}`);
    else if (value !== undefined && isPathSegmentName(value).length > 0)
      report(ctx, [...path, field], `${show(value)} is not a valid ${field}: ${RULES.segment}`);
  }
  // ValidateAPIVersion (from 1.34): schema.ParseGroupVersion refuses more than one '/'; a scale target names its group.
  if (!atLeast(ctx, 34)) return;
  const apiVersion = str(ref.apiVersion) ?? "";
  const parts = apiVersion.split("/");
  if (parts.length > 2) report(ctx, [...path, "apiVersion"], `${show(apiVersion)} is not group/version: it has more than one '/'`);
  else if (!emptyGroup && (parts.length === 1 || parts[0] === ""))
    report(ctx, [...path, "apiVersion"], `${show(apiVersion)} names no API group: a scale target is named as group/version, such as apps/v1`);
}

/** validateMetricSpec with its source's checks: the source of its type, and that one alone. */
function checkMetric(metric: Obj, path: Path, ctx: Ctx): void {
  const type = str(metric.type);
  const present = SOURCES.filter((source) => metric[source] !== undefined && metric[source] !== null);
  const expected = type !== undefined && Object.hasOwn(SOURCE_OF, type) ? SOURCE_OF[type] : undefined;
  if (expected && !present.includes(expected)) report(ctx, [...path, expected], `a metric of type ${type} needs its ${expected} source`);
  if (present.length > 1)
    for (const source of present) if (source !== expected) report(ctx, [...path, source], `a metric of type ${type} sets its ${expected} source only`);
  const first = present[0];
  if (first === undefined || !isRecord(metric[first])) return;
  const source = metric[first] as Obj;
  const at = [...path, first];
  const target = isRecord(source.target) ? source.target : {};
  checkTarget(target, [...at, "target"], ctx);
  if (first !== "resource" && first !== "containerResource") checkMetricName(source.metric, [...at, "metric"], ctx);
  if (first === "object" && isRecord(source.describedObject)) checkReference(source.describedObject, [...at, "describedObject"], true, ctx);
  const set = (k: string) => target[k] !== undefined && target[k] !== null;
  if ((first === "object" || first === "external") && !set("value") && !set("averageValue"))
    report(ctx, [...at, "target", "averageValue"], "the target needs a value or an averageValue");
  if (first === "external" && set("value") && set("averageValue"))
    report(ctx, [...at, "target", "value"], "the target sets a value or an averageValue, not both");
  if (first === "pods" && !set("averageValue")) report(ctx, [...at, "target", "averageValue"], "a pods metric's target needs an averageValue");
  if (first === "resource" || first === "containerResource") {
    if (source.name === "") report(ctx, [...at, "name"], "the metric needs the name of a resource (cpu, memory)");
    if (!set("averageUtilization") && !set("averageValue"))
      report(ctx, [...at, "target", "averageUtilization"], "the target needs an averageUtilization or an averageValue");
    else if (set("averageUtilization") && set("averageValue"))
      report(ctx, [...at, "target", "averageValue"], "the target sets an averageUtilization or an averageValue, not both");
  }
  if (first === "containerResource") {
    const container = str(source.container);
    if (container === "") report(ctx, [...at, "container"], "the metric needs the name of a container");
    else if (container !== undefined && isDNS1123Label(container).length > 0)
      report(ctx, [...at, "container"], `${show(container)} is not a valid container name: ${RULES.label}`);
  }
}

/** validateMetricTarget: Utilization, Value or AverageValue; positive quantities; a utilization above 0. */
function checkTarget(target: Obj, path: Path, ctx: Ctx): void {
  const type = str(target.type);
  if (type === "") report(ctx, [...path, "type"], "the target needs a type: Utilization, Value or AverageValue");
  else if (type !== undefined && !["Utilization", "Value", "AverageValue"].includes(type))
    report(ctx, [...path, "type"], `${show(type)} is not a target type: use Utilization, Value or AverageValue`);
  for (const field of ["value", "averageValue"]) {
    const quantity = parseQuantity(target[field]);
    if (quantity !== undefined && quantity.mantissa <= 0n) report(ctx, [...path, field], `${field} ${show(target[field])} must be positive`);
  }
  const utilisation = int(target.averageUtilization);
  if (utilisation !== undefined && utilisation < 1) report(ctx, [...path, "averageUtilization"], `averageUtilization ${utilisation} must be greater than 0`);
}

/** validateMetricIdentifier: a name that is a path segment. */
function checkMetricName(metric: unknown, path: Path, ctx: Ctx): void {
  const name = isRecord(metric) ? str(metric.name) : undefined;
  if (name === "") report(ctx, [...path, "name"], "the metric needs a name");
  else if (name !== undefined && isPathSegmentName(name).length > 0)
    report(ctx, [...path, "name"], `${show(name)} is not a valid metric name: ${RULES.segment}`);
}

/** validateScalingRules and validateScalingPolicy: a window of 0-3600 s, at least one policy, each positive and at most 1800 s. */
function checkScalingRules(rules: Obj, path: Path, ctx: Ctx): void {
  const window = int(rules.stabilizationWindowSeconds);
  if (window !== undefined && (window < 0 || window > MAX_WINDOW))
    report(ctx, [...path, "stabilizationWindowSeconds"], `stabilizationWindowSeconds ${window} is outside 0-${MAX_WINDOW}`);
  const policies = list(rules.policies);
  if (policies.length === 0) report(ctx, [...path, "policies"], "scaling rules need at least one policy");
  policies.forEach((policy, i) => {
    if (!isRecord(policy)) return;
    const at = [...path, "policies", i];
    const type = str(policy.type);
    if (type !== undefined && type !== "Pods" && type !== "Percent") report(ctx, [...at, "type"], `${show(type)} is not a policy type: use Pods or Percent`);
    const value = int(policy.value);
    if (value !== undefined && value <= 0) report(ctx, [...at, "value"], `value ${value} must be greater than zero`);
    const period = int(policy.periodSeconds);
    if (period !== undefined && (period <= 0 || period > MAX_PERIOD))
      report(ctx, [...at, "periodSeconds"], `periodSeconds ${period} is outside 1-${MAX_PERIOD}`);
  });
  // tolerance is dropped on create unless the HPAConfigurableTolerance gate is on: not judged.
}
