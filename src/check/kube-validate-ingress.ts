// What kube-apiserver refuses beyond the OpenAPI schema in an Ingress on create
// (pkg/apis/networking/validation ValidateIngressCreate): rules or a default backend, hosts as DNS
// names, paths by their type, each backend a Service port or a resource, TLS hosts and secret names.
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isPathSegmentName,
  isValidPortName,
  isWildcardDNS1123Subdomain,
  parseIPSloppy,
} from "../k8s/validation.ts";
import { atLeast, type Ctx, int, isRecord, list, type Path, RULES, report, show, str } from "./kube-validate-meta.ts";

type Obj = Record<string, unknown>;

const INVALID_SEQUENCES = ["//", "/./", "/../", "%2f", "%2F"];
const INVALID_SUFFIXES = ["/..", "/."];
const CLASS_ANNOTATION = "kubernetes.io/ingress.class";

export function checkIngress(object: Obj, ctx: Ctx): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  const rules = list(spec.rules);
  if (rules.length === 0 && !isRecord(spec.defaultBackend)) report(ctx, ["spec"], "an Ingress needs rules or a defaultBackend");
  if (isRecord(spec.defaultBackend)) checkBackend(spec.defaultBackend, ["spec", "defaultBackend"], ctx);
  rules.forEach((rule, i) => {
    if (isRecord(rule)) checkRule(rule, ["spec", "rules", i], ctx);
  });
  list(spec.tls).forEach((tls, i) => {
    if (!isRecord(tls)) return;
    list(tls.hosts).forEach((host, j) => checkHost(host, ["spec", "tls", i, "hosts", j], ctx));
    const secret = str(tls.secretName);
    if (secret && isDNS1123Subdomain(secret).length > 0)
      report(ctx, ["spec", "tls", i, "secretName"], `${show(secret)} is not a valid Secret name: ${RULES.subdomain}`);
  });
  const className = str(spec.ingressClassName);
  if (className !== undefined && isDNS1123Subdomain(className).length > 0)
    report(ctx, ["spec", "ingressClassName"], `${show(className)} is not a valid IngressClass name: ${RULES.subdomain}`);
  const annotations = isRecord(object.metadata) && isRecord(object.metadata.annotations) ? object.metadata.annotations : {};
  const annotated = annotations[CLASS_ANNOTATION];
  // Read in 1.29's source, not in 1.24's: judged from 1.29.
  if (atLeast(ctx, 29) && typeof annotated === "string" && className !== undefined && annotated !== className)
    report(
      ctx,
      ["metadata", "annotations", CLASS_ANNOTATION],
      `the annotation says ${show(annotated)} and ingressClassName ${show(className)}: they must match`,
    );
}

/** A host as a DNS name (a wildcard one with '*'), not an IP address. */
function checkHost(host: unknown, path: Path, ctx: Ctx, rule = false): void {
  if (typeof host !== "string" || host === "") return;
  if (rule && parseIPSloppy(host) !== undefined) report(ctx, path, `host ${show(host)} must be a DNS name, not an IP address`);
  const problems = host.includes("*") ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
  if (problems.length > 0) report(ctx, path, `${show(host)} is not a valid host: ${problems.join("; ")}`);
}

/** validateIngressRules and validateHTTPIngressPath: paths, each absolute by its type. */
function checkRule(rule: Obj, path: Path, ctx: Ctx): void {
  checkHost(rule.host, [...path, "host"], ctx, true);
  if (!isRecord(rule.http)) return;
  const paths = list(rule.http.paths);
  if (paths.length === 0) report(ctx, [...path, "http", "paths"], "an http rule needs at least one path");
  paths.forEach((entry, i) => {
    if (!isRecord(entry)) return;
    const at = [...path, "http", "paths", i];
    const type = str(entry.pathType);
    // Without a pathType the schema reports it, and the API server reads no further.
    if (type === undefined) return;
    const value = str(entry.path) ?? "";
    const absolute = value.startsWith("/");
    if ((type === "Exact" || type === "Prefix") && !absolute)
      report(ctx, [...at, "path"], `a ${type} path must be absolute (start with '/'), not ${show(value)}`);
    if ((type === "Exact" || type === "Prefix") && value !== "") {
      for (const sequence of INVALID_SEQUENCES)
        if (value.includes(sequence)) report(ctx, [...at, "path"], `path ${show(value)} must not contain '${sequence}'`);
      for (const suffix of INVALID_SUFFIXES) if (value.endsWith(suffix)) report(ctx, [...at, "path"], `path ${show(value)} cannot end with '${suffix}'`);
    }
    if (type === "ImplementationSpecific" && value !== "" && !absolute) report(ctx, [...at, "path"], `path ${show(value)} must be absolute (start with '/')`);
    checkBackend(isRecord(entry.backend) ? entry.backend : {}, [...at, "backend"], ctx);
  });
}

/** validateIngressBackend: a Service (named by the release's Service name rule, one port name or number) or a resource, not both. */
function checkBackend(backend: Obj, path: Path, ctx: Ctx): void {
  const resource = isRecord(backend.resource) ? backend.resource : undefined;
  const service = isRecord(backend.service) ? backend.service : undefined;
  if (resource && service) report(ctx, path, "a backend is a service or a resource, not both");
  else if (resource) checkTypedReference(resource, [...path, "resource"], ctx);
  else if (service) checkServiceBackend(service, [...path, "service"], ctx);
  else report(ctx, path, "a backend needs a service or a resource");
}

/** validateIngressTypedLocalObjectReference: a group as a subdomain, a kind and a name as path segments (an IngressClass's parameters too). */
export function checkTypedReference(resource: Obj, path: Path, ctx: Ctx): void {
  const group = str(resource.apiGroup);
  if (group !== undefined && isDNS1123Subdomain(group).length > 0)
    report(ctx, [...path, "apiGroup"], `${show(group)} is not a valid API group: ${RULES.subdomain}`);
  for (const field of ["kind", "name"]) {
    const value = str(resource[field]);
    if (value === "") report(ctx, [...path, field], `the reference needs its ${field}`);
    else if (value !== undefined && isPathSegmentName(value).length > 0)
      report(ctx, [...path, field], `${show(value)} is not a valid ${field}: ${RULES.segment}`);
  }
}

function checkServiceBackend(service: Obj, path: Path, ctx: Ctx): void {
  const name = str(service.name);
  // The Service name rule of the release: a DNS-1035 label before 1.36 (RelaxedServiceNameValidation on from 1.36).
  const relaxed = atLeast(ctx, 36);
  if (name === "") report(ctx, [...path, "name"], "the service backend needs the Service's name");
  else if (name !== undefined && (relaxed ? isDNS1123Label(name) : isDNS1035Label(name)).length > 0)
    report(ctx, [...path, "name"], `${show(name)} is not a valid Service name: ${relaxed ? RULES.label : RULES.dns1035}`);
  const port = isRecord(service.port) ? service.port : {};
  const portName = str(port.name) ?? "";
  const number = int(port.number) ?? 0;
  if (portName !== "" && number !== 0) report(ctx, [...path, "port"], "the service port is a name or a number, not both");
  else if (portName !== "") {
    const problems = isValidPortName(portName);
    if (problems.length > 0) report(ctx, [...path, "port", "name"], `${show(portName)} is not a valid port name: ${problems.join("; ")}`);
  } else if (number !== 0) {
    if (number < 1 || number > 65535) report(ctx, [...path, "port", "number"], `port ${number} is outside 1-65535`);
  } else report(ctx, [...path, "port"], "the service backend needs a port name or number");
}
