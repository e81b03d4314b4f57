// What kube-apiserver refuses beyond the OpenAPI schema in a Validating- or MutatingWebhookConfiguration
// on create (pkg/apis/admissionregistration/validation validateValidatingWebhook, validateRuleWithOperations,
// validateResources; apiserver's webhook.ValidateWebhookURL and ValidateWebhookService). A matchCondition's
// CEL and what Go's URL parser alone refuses are not judged.
import { isDNS1035Label, isDNS1123Subdomain } from "../k8s/validation.ts";
import { type Ctx, checkLabelSelector, int, isRecord, list, type Path, report, show, str } from "./kube-validate-meta.ts";

type Obj = Record<string, unknown>;
const REVIEW_VERSIONS = ["v1", "v1beta1"];
const SIDE_EFFECTS = ["None", "NoneOnDryRun"];
const OPERATIONS = ["*", "CREATE", "UPDATE", "DELETE", "CONNECT"];

export function checkWebhookConfiguration(object: Obj, ctx: Ctx): void {
  const names = new Set<string>();
  list(object.webhooks).forEach((hook, i) => {
    if (!isRecord(hook)) return;
    const at = ["webhooks", i];
    checkWebhook(hook, at, ctx);
    const name = str(hook.name);
    if (name) {
      if (names.has(name)) report(ctx, [...at, "name"], `webhook name ${show(name)} is used twice in the configuration`);
      names.add(name);
    }
  });
}

function checkWebhook(hook: Obj, path: Path, ctx: Ctx): void {
  const name = str(hook.name) ?? "";
  // IsFullyQualifiedName: a subdomain of at least three labels.
  if (name === "") report(ctx, [...path, "name"], "a webhook needs a name, such as validate.example.com");
  else if (isDNS1123Subdomain(name).length > 0 || name.split(".").length < 3)
    report(ctx, [...path, "name"], `${show(name)} is not a fully qualified name: a DNS subdomain of at least three labels, such as validate.example.com`);
  list(hook.rules).forEach((rule, i) => {
    if (isRecord(rule)) checkRule(rule, [...path, "rules", i], ctx);
  });
  const effects = hook.sideEffects;
  if (effects === undefined || effects === null) report(ctx, [...path, "sideEffects"], "a webhook needs sideEffects: None or NoneOnDryRun");
  else if (typeof effects === "string" && !SIDE_EFFECTS.includes(effects))
    report(ctx, [...path, "sideEffects"], `sideEffects ${show(effects)}: a webhook created in admissionregistration.k8s.io/v1 declares None or NoneOnDryRun`);
  const timeout = int(hook.timeoutSeconds);
  if (timeout !== undefined && (timeout < 1 || timeout > 30)) report(ctx, [...path, "timeoutSeconds"], `timeoutSeconds ${timeout} is outside 1-30`);
  checkLabelSelector(hook.namespaceSelector, [...path, "namespaceSelector"], ctx);
  checkLabelSelector(hook.objectSelector, [...path, "objectSelector"], ctx);
  checkClientConfig(isRecord(hook.clientConfig) ? hook.clientConfig : {}, [...path, "clientConfig"], ctx);
  checkReviewVersions(hook.admissionReviewVersions, [...path, "admissionReviewVersions"], ctx);
}

/** validateAdmissionReviewVersions: at least one, each once, DNS-1035 labels, one of them v1 or v1beta1. */
function checkReviewVersions(value: unknown, path: Path, ctx: Ctx): void {
  const versions = list(value).filter((v): v is string => typeof v === "string");
  if (list(value).length === 0) {
    report(ctx, path, "a webhook needs admissionReviewVersions, such as [v1]");
    return;
  }
  versions.forEach((v, i) => {
    if (versions.indexOf(v) !== i) report(ctx, [...path, i], `version ${show(v)} is given twice`);
    else if (isDNS1035Label(v).length > 0) report(ctx, [...path, i], `${show(v)} is not a version name`);
  });
  if (!versions.some((v) => REVIEW_VERSIONS.includes(v))) report(ctx, path, "admissionReviewVersions must include v1 or v1beta1");
}

/** Exactly one of url and service; an https URL with a host and no user, query or fragment; a service with a name, namespace, port and path. */
function checkClientConfig(config: Obj, path: Path, ctx: Ctx): void {
  const url = str(config.url);
  const service = isRecord(config.service) ? config.service : undefined;
  if ((url === undefined) === (service === undefined)) {
    report(ctx, path, "the clientConfig needs exactly one of url and service");
    return;
  }
  if (url !== undefined) {
    checkUrl(url, [...path, "url"], ctx);
    return;
  }
  for (const field of ["name", "namespace"]) if (!str(service![field])) report(ctx, [...path, "service", field], `the service needs its ${field}`);
  const port = int(service!.port);
  if (port !== undefined && (port < 1 || port > 65535)) report(ctx, [...path, "service", "port"], `port ${port} is outside 1-65535`);
  const urlPath = str(service!.path);
  if (urlPath === undefined || urlPath === "" || urlPath === "/") return;
  if (!urlPath.startsWith("/")) {
    report(ctx, [...path, "service", "path"], `path ${show(urlPath)} must start with '/'`);
    return;
  }
  const trimmed = urlPath.slice(1).replace(/\/$/, "");
  if (trimmed.split("/").some((step) => step === "" || isDNS1123Subdomain(step).length > 0))
    report(ctx, [...path, "service", "path"], `path ${show(urlPath)}: each segment is a lowercase DNS subdomain, none empty`);
}

/** ValidateWebhookURL's refusals that need no URL parser: the https scheme, a host, no user information, query or fragment. */
function checkUrl(url: string, path: Path, ctx: Ctx): void {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1];
  if (scheme === undefined || scheme.toLowerCase() !== "https") {
    report(ctx, path, `${show(url)}: 'https' is the only scheme a webhook URL takes`);
    return;
  }
  const rest = url.slice(scheme.length + 1);
  const authority = rest.startsWith("//") ? /^\/\/([^/?#]*)/.exec(rest)![1] : "";
  if (authority === "" || authority.startsWith("@") || authority.endsWith("@")) report(ctx, path, `${show(url)} names no host`);
  else if (authority.includes("@")) report(ctx, path, `${show(url)}: user information is not permitted in a webhook URL`);
  if (rest.includes("#")) report(ctx, path, `${show(url)}: a webhook URL takes no fragment`);
  else if (/\?[^#]/.test(rest)) report(ctx, path, `${show(url)}: a webhook URL takes no query`);
}

/** validateRuleWithOperations and validateRule: operations, groups and versions given, '*' alone, resources by validateResources. */
function checkRule(rule: Obj, path: Path, ctx: Ctx): void {
  for (const [field, what] of [
    ["operations", "operations"],
    ["apiGroups", "API groups"],
    ["apiVersions", "API versions"],
  ] as const) {
    const values = list(rule[field]);
    if (values.length === 0) report(ctx, [...path, field], `a rule needs its ${what} ('*' for all)`);
    else if (values.length > 1 && values.includes("*")) report(ctx, [...path, field], `with '*' among the ${what}, name no other`);
  }
  list(rule.operations).forEach((op, i) => {
    if (typeof op === "string" && !OPERATIONS.includes(op))
      report(ctx, [...path, "operations", i], `${show(op)} is not an operation: use CREATE, UPDATE, DELETE, CONNECT or '*'`);
  });
  list(rule.apiVersions).forEach((v, i) => {
    if (v === "") report(ctx, [...path, "apiVersions", i], "an API version cannot be empty");
  });
  checkResources(list(rule.resources), [...path, "resources"], ctx);
}

/** validateResources: given, none empty, and no resource both under a wildcard and named. */
function checkResources(resources: unknown[], path: Path, ctx: Ctx): void {
  if (resources.length === 0) {
    report(ctx, path, "a rule needs its resources ('*' for all)");
    return;
  }
  const wildSub = new Set<string>();
  const wildRes = new Set<string>();
  let plain = false;
  resources.forEach((entry, i) => {
    if (typeof entry !== "string") return;
    if (entry === "") {
      report(ctx, [...path, i], "a resource cannot be empty");
      return;
    }
    const slash = entry.indexOf("/");
    if (slash < 0) {
      plain = entry !== "*";
      return;
    }
    const [res, sub] = [entry.slice(0, slash), entry.slice(slash + 1)];
    if (wildSub.has(res)) report(ctx, [...path, i], `with ${res}/* present, ${show(entry)} is named twice`);
    if (wildRes.has(sub)) report(ctx, [...path, i], `with */${sub} present, ${show(entry)} is named twice`);
    if (sub === "*") wildSub.add(res);
    if (res === "*") wildRes.add(sub);
  });
  if (resources.length > 1 && resources.includes("*/*")) report(ctx, path, "with '*/*' among the resources, name no other");
  if (resources.includes("*") && plain) report(ctx, path, "with '*' among the resources, name no other resource without a subresource");
}
