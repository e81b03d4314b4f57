// What kube-apiserver refuses beyond the OpenAPI schema in a StorageClass and an IngressClass
// (pkg/apis/storage/validation ValidateStorageClass, pkg/apis/networking/validation ValidateIngressClass).
import { byteLength, isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from "../k8s/validation.ts";
import { checkTypedReference } from "./kube-validate-ingress.ts";
import { type Ctx, isRecord, list, type Path, RULES, report, show, str } from "./kube-validate-meta.ts";

type Obj = Record<string, unknown>;
const MAX_PARAMETERS = 512;
const MAX_PARAMETER_BYTES = 256 * 1024;
/** apimachinery's httpPathFmt: the path after an IngressClass controller's domain. */
const HTTP_PATH = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

/** A provisioner named as a qualified name (lower-cased first), parameters of at most 512 non-empty keys and 256 KiB, Delete or Retain, allowed topologies. */
export function checkStorageClass(object: Obj, ctx: Ctx): void {
  const provisioner = str(object.provisioner);
  if (provisioner === "") report(ctx, ["provisioner"], "a StorageClass needs its provisioner (such as ebs.csi.aws.com)");
  else if (provisioner !== undefined && isQualifiedName(provisioner.toLowerCase()).length > 0)
    report(ctx, ["provisioner"], `${show(provisioner)} is not a valid provisioner: ${RULES.qualified}`);
  const parameters = isRecord(object.parameters) ? object.parameters : {};
  const keys = Object.keys(parameters);
  if (keys.length > MAX_PARAMETERS) report(ctx, ["parameters"], `${keys.length} parameters: Kubernetes takes at most ${MAX_PARAMETERS}`);
  else {
    if (keys.includes("")) report(ctx, ["parameters"], "a parameter's key cannot be empty");
    const bytes = keys.reduce((n, k) => n + byteLength(k) + (typeof parameters[k] === "string" ? byteLength(parameters[k] as string) : 0), 0);
    if (bytes > MAX_PARAMETER_BYTES) report(ctx, ["parameters"], `the parameters take ${bytes} bytes: Kubernetes takes at most ${MAX_PARAMETER_BYTES}`);
  }
  // The schema's enum is the volume's (Delete, Recycle, Retain): a class provisions with Delete or Retain.
  if (object.reclaimPolicy === "Recycle") report(ctx, ["reclaimPolicy"], "a StorageClass's reclaimPolicy is Delete or Retain, not Recycle");
  const seen: string[] = [];
  list(object.allowedTopologies).forEach((term, i) => {
    if (!isRecord(term)) return;
    const shape = checkTopologyTerm(term, ["allowedTopologies", i], ctx);
    if (seen.includes(shape)) report(ctx, ["allowedTopologies", i, "matchLabelExpressions"], "this topology term is given twice");
    seen.push(shape);
  });
}

/** ValidateTopologySelectorTerm: each key once, a label key, with values, each once; the term's shape for duplicates. */
function checkTopologyTerm(term: Obj, path: Path, ctx: Ctx): string {
  const keys = new Map<string, string[]>();
  list(term.matchLabelExpressions).forEach((rq, i) => {
    if (!isRecord(rq)) return;
    const at = [...path, "matchLabelExpressions", i];
    const values = list(rq.values).filter((v): v is string => typeof v === "string");
    if (list(rq.values).length === 0) report(ctx, [...at, "values"], "a topology requirement needs at least one value");
    values.forEach((v, j) => {
      if (values.indexOf(v) !== j) report(ctx, [...at, "values", j], `value ${show(v)} is given twice`);
    });
    const key = str(rq.key) ?? "";
    if (isQualifiedName(key).length > 0) report(ctx, [...at, "key"], `${show(key)} is not a valid label key: ${RULES.qualified}`);
    if (keys.has(key)) report(ctx, [...at, "key"], `key ${show(key)} is given twice in the term`);
    keys.set(key, [...new Set(values)].sort());
  });
  return JSON.stringify([...keys].sort());
}

/** validateIngressClassSpec: a controller as domain/path of at most 250 characters, and its parameters reference. */
export function checkIngressClass(object: Obj, ctx: Ctx): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  const controller = str(spec.controller) ?? "";
  const at: Path = ["spec", "controller"];
  if (byteLength(controller) > 250) report(ctx, at, `the controller name is ${byteLength(controller)} bytes: at most 250`);
  const slash = controller.indexOf("/");
  if (controller === "") report(ctx, at, "an IngressClass needs its controller (such as k8s.io/ingress-nginx)");
  else if (slash <= 0 || slash === controller.length - 1) report(ctx, at, `${show(controller)} is not a domain-prefixed path such as example.com/ingress`);
  else if (isDNS1123Subdomain(controller.slice(0, slash)).length > 0 || !HTTP_PATH.test(controller.slice(slash + 1)))
    report(ctx, at, `${show(controller)} is not a domain-prefixed path: a DNS subdomain, '/', then a URL path`);
  if (isRecord(spec.parameters)) checkParameters(spec.parameters, ["spec", "parameters"], ctx);
}

/** validateIngressClassParametersReference after defaulting: a kind and a name, a scope, a namespace exactly with scope Namespace. */
function checkParameters(params: Obj, path: Path, ctx: Ctx): void {
  checkTypedReference(params, path, ctx);
  // SetDefaults_IngressClass: no scope is Cluster.
  const scope = params.scope ?? "Cluster";
  const namespace = params.namespace;
  if (scope !== "Namespace" && scope !== "Cluster") report(ctx, [...path, "scope"], `${show(scope)} is not a scope: use Cluster or Namespace`);
  else if (scope === "Namespace") {
    if (namespace === undefined || namespace === null) report(ctx, [...path, "namespace"], "with scope Namespace the parameters reference names its namespace");
    else if (typeof namespace === "string" && isDNS1123Label(namespace).length > 0)
      report(ctx, [...path, "namespace"], `${show(namespace)} is not a valid namespace: ${RULES.label}`);
  } else if (scope === "Cluster" && namespace !== undefined && namespace !== null)
    report(ctx, [...path, "namespace"], "with scope Cluster the parameters reference names no namespace");
}
