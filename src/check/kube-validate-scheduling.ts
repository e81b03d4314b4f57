// What kube-apiserver refuses beyond the OpenAPI schema in where a pod may run: its affinity and its
// tolerations (pkg/apis/core/validation validateAffinity, ValidateTolerations). The schema's enums judge
// operators and effects by name; what a feature gate decides (toleration Lt and Gt, matchLabelKeys) is not judged.
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from "../k8s/validation.ts";
import { atLeast, type Ctx, checkLabelSelector, int, isRecord, list, type Path, RULES, report, show, str } from "./kube-validate-meta.ts";

type Obj = Record<string, unknown>;

const labelKey = (ctx: Ctx, key: unknown, path: Path) => {
  if (typeof key === "string" && isQualifiedName(key).length > 0) report(ctx, path, `${show(key)} is not a valid label key: ${RULES.qualified}`);
};

/** A pod spec's affinity, tolerations and topology spread constraints. */
export function checkScheduling(spec: Obj, path: Path, ctx: Ctx): void {
  if (isRecord(spec.affinity)) checkAffinity(spec.affinity, [...path, "affinity"], ctx);
  list(spec.tolerations).forEach((toleration, i) => {
    if (isRecord(toleration)) checkToleration(toleration, [...path, "tolerations", i], ctx);
  });
  checkSpread(list(spec.topologySpreadConstraints), [...path, "topologySpreadConstraints"], ctx);
}

/**
 * validateTopologySpreadConstraints: a positive maxSkew, a topologyKey, each {topologyKey, whenUnsatisfiable} once,
 * minDomains (on by default from 1.27) positive and only with DoNotSchedule, a valid labelSelector (checked from 1.29:
 * 1.24's source has no such check). matchLabelKeys is gated: not judged.
 */
function checkSpread(constraints: unknown[], path: Path, ctx: Ctx): void {
  const seen = new Set<string>();
  constraints.forEach((c, i) => {
    if (!isRecord(c)) return;
    const at = [...path, i];
    const skew = int(c.maxSkew);
    if (skew !== undefined && skew <= 0) report(ctx, [...at, "maxSkew"], `maxSkew ${skew} must be greater than zero`);
    if (c.topologyKey === "") report(ctx, [...at, "topologyKey"], "topologyKey cannot be empty (kubernetes.io/hostname, topology.kubernetes.io/zone...)");
    const key = `${String(c.topologyKey)}\0${String(c.whenUnsatisfiable)}`;
    if (seen.has(key)) report(ctx, at, `two constraints spread by ${show(c.topologyKey)} with whenUnsatisfiable ${show(c.whenUnsatisfiable)}: keep one`);
    seen.add(key);
    const minDomains = int(c.minDomains);
    if (minDomains !== undefined && atLeast(ctx, 27)) {
      if (minDomains <= 0) report(ctx, [...at, "minDomains"], `minDomains ${minDomains} must be greater than zero`);
      else if (c.whenUnsatisfiable !== "DoNotSchedule") report(ctx, [...at, "minDomains"], "minDomains is taken only with whenUnsatisfiable: DoNotSchedule");
    }
    if (atLeast(ctx, 29)) checkLabelSelector(c.labelSelector, [...at, "labelSelector"], ctx);
  });
}

/** ValidateTolerations: a key that is a label key, or none with Exists; tolerationSeconds only for NoExecute; a value by operator. */
function checkToleration(t: Obj, path: Path, ctx: Ctx): void {
  const key = str(t.key) ?? "";
  const operator = str(t.operator) ?? "";
  if (key !== "") labelKey(ctx, key, [...path, "key"]);
  else if (operator !== "Exists") report(ctx, [...path, "operator"], 'a toleration without a key matches every taint: its operator must be "Exists"');
  if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== "NoExecute")
    report(ctx, [...path, "effect"], "tolerationSeconds is set only with effect NoExecute");
  const value = str(t.value) ?? "";
  if ((operator === "Equal" || operator === "") && isValidLabelValue(value).length > 0)
    report(ctx, [...path, "operator"], `value ${show(value)} is not a valid label value: ${RULES.labelValue}`);
  if (operator === "Exists" && value !== "") report(ctx, [...path, "operator"], `operator Exists takes no value, not ${show(value)}`);
}

function checkAffinity(affinity: Obj, path: Path, ctx: Ctx): void {
  if (isRecord(affinity.nodeAffinity)) checkNodeAffinity(affinity.nodeAffinity, [...path, "nodeAffinity"], ctx);
  for (const kind of ["podAffinity", "podAntiAffinity"]) {
    const terms = affinity[kind];
    if (!isRecord(terms)) continue;
    const at = [...path, kind];
    list(terms.requiredDuringSchedulingIgnoredDuringExecution).forEach((term, i) => {
      if (isRecord(term)) checkPodAffinityTerm(term, [...at, "requiredDuringSchedulingIgnoredDuringExecution", i], ctx);
    });
    list(terms.preferredDuringSchedulingIgnoredDuringExecution).forEach((weighted, i) => {
      if (!isRecord(weighted)) return;
      const where = [...at, "preferredDuringSchedulingIgnoredDuringExecution", i];
      checkWeight(weighted, where, ctx);
      if (isRecord(weighted.podAffinityTerm)) checkPodAffinityTerm(weighted.podAffinityTerm, [...where, "podAffinityTerm"], ctx);
    });
  }
}

/** validateNodeAffinity: a required selector with at least one term; preferred terms weighted 1-100. */
function checkNodeAffinity(affinity: Obj, path: Path, ctx: Ctx): void {
  const required = affinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (isRecord(required)) {
    const at = [...path, "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"];
    const terms = list(required.nodeSelectorTerms);
    if (terms.length === 0) report(ctx, at, "a required node affinity needs at least one node selector term");
    // The label values of a required term are checked from 1.32 (read in 1.32's source, not in 1.29's).
    terms.forEach((term, i) => checkNodeSelectorTerm(term, [...at, i], atLeast(ctx, 32), ctx));
  }
  list(affinity.preferredDuringSchedulingIgnoredDuringExecution).forEach((preferred, i) => {
    if (!isRecord(preferred)) return;
    const at = [...path, "preferredDuringSchedulingIgnoredDuringExecution", i];
    checkWeight(preferred, at, ctx);
    checkNodeSelectorTerm(preferred.preference, [...at, "preference"], false, ctx);
  });
}

/** ValidateNodeSelectorTerm: each label requirement, and each field requirement (metadata.name alone). */
function checkNodeSelectorTerm(term: unknown, path: Path, labelValues: boolean, ctx: Ctx): void {
  if (!isRecord(term)) return;
  list(term.matchExpressions).forEach((rq, j) => {
    if (!isRecord(rq)) return;
    const at = [...path, "matchExpressions", j];
    const values = list(rq.values);
    const operator = str(rq.operator);
    if ((operator === "In" || operator === "NotIn") && values.length === 0) report(ctx, [...at, "values"], `operator ${operator} needs at least one value`);
    if ((operator === "Exists" || operator === "DoesNotExist") && values.length > 0) report(ctx, [...at, "values"], `operator ${operator} takes no values`);
    if ((operator === "Gt" || operator === "Lt") && values.length !== 1) report(ctx, [...at, "values"], `operator ${operator} takes exactly one value`);
    labelKey(ctx, rq.key, [...at, "key"]);
    if (labelValues)
      values.forEach((value, k) => {
        if (typeof value === "string" && isValidLabelValue(value).length > 0)
          report(ctx, [...at, "values", k], `${show(value)} is not a valid label value: ${RULES.labelValue}`);
      });
  });
  list(term.matchFields).forEach((rq, j) => {
    if (!isRecord(rq)) return;
    const at = [...path, "matchFields", j];
    const operator = str(rq.operator);
    const values = list(rq.values);
    if (operator !== undefined && operator !== "In" && operator !== "NotIn") report(ctx, [...at, "operator"], "a field requirement's operator is In or NotIn");
    else if (values.length !== 1) report(ctx, [...at, "values"], "a field requirement takes exactly one value");
    if (typeof rq.key === "string" && rq.key !== "metadata.name") report(ctx, [...at, "key"], `${show(rq.key)} is not a node field: only metadata.name is`);
    else
      values.forEach((value, k) => {
        if (typeof value === "string" && isDNS1123Subdomain(value).length > 0)
          report(ctx, [...at, "values", k], `${show(value)} is not a valid node name: ${RULES.subdomain}`);
      });
  });
}

/** validatePodAffinityTerm: valid selectors, namespaces as labels, a topologyKey that is a label key. */
function checkPodAffinityTerm(term: Obj, path: Path, ctx: Ctx): void {
  checkLabelSelector(term.labelSelector, [...path, "labelSelector"], ctx);
  checkLabelSelector(term.namespaceSelector, [...path, "namespaceSelector"], ctx);
  list(term.namespaces).forEach((name) => {
    if (typeof name === "string" && isDNS1123Label(name).length > 0)
      report(ctx, [...path, "namespace"], `${show(name)} is not a valid namespace: ${RULES.label}`);
  });
  const key = str(term.topologyKey);
  if (key === "") report(ctx, [...path, "topologyKey"], "topologyKey cannot be empty (kubernetes.io/hostname, topology.kubernetes.io/zone...)");
  else labelKey(ctx, key, [...path, "topologyKey"]);
}

function checkWeight(term: Obj, path: Path, ctx: Ctx): void {
  const weight = int(term.weight);
  if (weight !== undefined && (weight < 1 || weight > 100)) report(ctx, [...path, "weight"], `weight ${weight} is outside 1-100`);
}
