// What kube-apiserver refuses in one container beyond the OpenAPI schema: ports, environment
// names, volume mounts, probes and lifecycle handlers, and resources
// (k8s.io/kubernetes/pkg/apis/core/validation/validation.go validateContainerCommon and its callers).
import { compareQuantity, parseQuantity, type Quantity, toBytes, toMilli } from "../k8s/quantity.ts";
import { isEnvVarName, isHTTPHeaderName, isQualifiedName, isRelaxedEnvVarName, isValidPortName, isValidPortNum } from "../k8s/validation.ts";
import { atLeast, type Ctx, int, isRecord, list, type Path, report, show, str } from "./kube-validate-meta.ts";

export const PORT_NAME_RULE =
  "an IANA service name (at most 15 lower-case letters, digits and '-', with at least one letter, no '--', not starting or ending with '-')";
const PROTOCOLS = ["SCTP", "TCP", "UDP"];

/** validateContainerPorts: names unique within the container, containerPort 1-65535, hostPort 0-65535. */
export function checkContainerPorts(ports: unknown, path: Path, ctx: Ctx): void {
  const names = new Set<string>();
  list(ports).forEach((port, i) => {
    if (!isRecord(port)) return;
    const at = [...path, i];
    const name = str(port.name) ?? "";
    if (name !== "") {
      if (isValidPortName(name).length > 0) report(ctx, [...at, "name"], `${show(name)} is not a valid port name: ${PORT_NAME_RULE}`);
      else if (names.has(name))
        report(ctx, [...at, "name"], `port name ${show(name)} is used twice in this container: port names must be unique within a container`);
      else names.add(name);
    }
    const containerPort = int(port.containerPort);
    if (containerPort !== undefined && isValidPortNum(containerPort).length > 0)
      report(ctx, [...at, "containerPort"], `containerPort ${containerPort} is out of range: Kubernetes accepts 1 to 65535`);
    const hostPort = int(port.hostPort);
    if (hostPort !== undefined && hostPort !== 0 && isValidPortNum(hostPort).length > 0)
      report(ctx, [...at, "hostPort"], `hostPort ${hostPort} is out of range: Kubernetes accepts 1 to 65535, or 0 for none`);
    // The defaults make an empty protocol TCP.
    const protocol = str(port.protocol);
    if (protocol && !PROTOCOLS.includes(protocol)) report(ctx, [...at, "protocol"], `${show(protocol)} is not a port protocol: use TCP, UDP or SCTP`);
  });
}

/** ValidateEnv and ValidateEnvFrom's prefix: C-like names before 1.32, any printable ASCII but '=' from 1.32 (RelaxedEnvironmentVariableValidation). */
export function checkEnv(container: Record<string, unknown>, path: Path, ctx: Ctx): void {
  // An unknown version gets the relaxed rule, which refuses only what every version refuses.
  const strict = ctx.minor !== undefined && ctx.minor < 32;
  const rule = strict
    ? "letters, digits, '_', '-' and '.', not starting with a digit, and not '.', '..' or starting with '..' (Kubernetes 1.32 and later take any printable ASCII but '=')"
    : "printable ASCII characters other than '='";
  const bad = (name: string) => (strict ? isEnvVarName(name) : isRelaxedEnvVarName(name)).length > 0;
  list(container.env).forEach((env, i) => {
    const name = isRecord(env) ? str(env.name) : undefined;
    if (name === "") report(ctx, [...path, "env", i, "name"], "an environment variable needs a name");
    else if (name !== undefined && bad(name)) report(ctx, [...path, "env", i, "name"], `${show(name)} is not a valid environment variable name: ${rule}`);
  });
  list(container.envFrom).forEach((source, i) => {
    const prefix = isRecord(source) ? str(source.prefix) : undefined;
    if (prefix && bad(prefix)) report(ctx, [...path, "envFrom", i, "prefix"], `${show(prefix)} is not a valid environment variable prefix: ${rule}`);
  });
}

/** validateLocalDescendingPath: relative (path.IsAbs), and no '..' element. */
export function isDescendingPath(value: string): boolean {
  return !value.startsWith("/") && !value.split("/").includes("..");
}

/** ValidateVolumeMounts: the name names a volume of the pod, mountPath unique in the container, subPath relative. */
export function checkVolumeMounts(mounts: unknown, volumes: ReadonlySet<string>, path: Path, ctx: Ctx): void {
  const mountPaths = new Set<string>();
  list(mounts).forEach((mount, i) => {
    if (!isRecord(mount)) return;
    const at = [...path, i];
    const name = str(mount.name);
    if (name === "") report(ctx, [...at, "name"], "a volume mount needs the name of a volume");
    else if (name !== undefined && !volumes.has(name))
      report(ctx, [...at, "name"], `volume mount names ${show(name)}, which is not a volume of this pod: name one of spec.volumes`);
    const mountPath = str(mount.mountPath);
    if (mountPath === "") report(ctx, [...at, "mountPath"], "a volume mount needs a mountPath");
    else if (mountPath !== undefined) {
      if (mountPaths.has(mountPath))
        report(ctx, [...at, "mountPath"], `mountPath ${show(mountPath)} is mounted twice in this container: each mountPath must be unique`);
      mountPaths.add(mountPath);
    }
    for (const field of ["subPath", "subPathExpr"]) {
      const value = str(mount[field]);
      if (value && !isDescendingPath(value))
        report(ctx, [...at, field], `${field} ${show(value)} must be a relative path inside the volume, without a '..' element`);
    }
    if (str(mount.subPath) && str(mount.subPathExpr)) report(ctx, [...at, "subPathExpr"], "subPath and subPathExpr cannot both be set");
  });
}

/** ValidatePortNumOrName: a number 1-65535, or an IANA port name (a quoted number is a name, and no valid one). */
function checkPortNumOrName(port: unknown, path: Path, ctx: Ctx): void {
  if (typeof port === "number" && Number.isInteger(port) && isValidPortNum(port).length > 0)
    report(ctx, path, `port ${port} is out of range: Kubernetes accepts 1 to 65535 or a port name`);
  if (typeof port === "string" && isValidPortName(port).length > 0)
    report(ctx, path, `${show(port)} is not a valid port: a number from 1 to 65535 (unquoted), or ${PORT_NAME_RULE}`);
}

/** validateHandler: exactly one action, and each action's own checks. */
function checkHandler(handler: Record<string, unknown>, actions: readonly string[], path: Path, ctx: Ctx): void {
  const given = actions.filter((a) => handler[a] !== undefined && handler[a] !== null);
  if (given.length === 0) report(ctx, path, `needs one action: ${actions.join(", ")}`);
  if (given.length > 1) report(ctx, [...path, given[1]], `sets ${given.join(" and ")}: Kubernetes accepts exactly one action of ${actions.join(", ")}`);
  const { exec, httpGet, tcpSocket, grpc } = handler;
  if (isRecord(exec) && list(exec.command).length === 0) report(ctx, [...path, "exec", "command"], "an exec action needs a command");
  if (isRecord(httpGet)) {
    checkPortNumOrName(httpGet.port, [...path, "httpGet", "port"], ctx);
    list(httpGet.httpHeaders).forEach((header, i) => {
      const name = isRecord(header) ? str(header.name) : undefined;
      if (name !== undefined && isHTTPHeaderName(name).length > 0)
        report(ctx, [...path, "httpGet", "httpHeaders", i, "name"], `${show(name)} is not a valid HTTP header name: letters, digits and '-'`);
    });
  }
  if (isRecord(tcpSocket)) checkPortNumOrName(tcpSocket.port, [...path, "tcpSocket", "port"], ctx);
  if (isRecord(grpc)) checkPortNumOrName(int(grpc.port), [...path, "grpc", "port"], ctx);
}

const PROBE_ACTIONS = ["exec", "httpGet", "tcpSocket", "grpc"];
const PROBE_COUNTS = ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"];

/** validateLivenessProbe, validateReadinessProbe, validateStartupProbe (after SetDefaults_Probe: a zero successThreshold is 1). */
export function checkProbes(container: Record<string, unknown>, path: Path, ctx: Ctx): void {
  for (const kind of ["livenessProbe", "readinessProbe", "startupProbe"]) {
    const probe = container[kind];
    if (!isRecord(probe)) continue;
    const at = [...path, kind];
    checkHandler(probe, PROBE_ACTIONS, at, ctx);
    for (const field of PROBE_COUNTS) {
      const n = int(probe[field]);
      if (n !== undefined && n < 0) report(ctx, [...at, field], `${field} ${n} is negative: Kubernetes accepts 0 or more`);
    }
    const success = int(probe.successThreshold) ?? 0;
    if (kind !== "readinessProbe" && success > 1) report(ctx, [...at, "successThreshold"], `a ${kind}'s successThreshold must be 1, not ${success}`);
    // The probe's own terminationGracePeriodSeconds (ProbeTerminationGracePeriod) is on by default from 1.25.
    const grace = int(probe.terminationGracePeriodSeconds);
    if (grace !== undefined && atLeast(ctx, 25)) {
      if (kind === "readinessProbe") report(ctx, [...at, "terminationGracePeriodSeconds"], "a readinessProbe cannot set terminationGracePeriodSeconds");
      else if (grace <= 0) report(ctx, [...at, "terminationGracePeriodSeconds"], `terminationGracePeriodSeconds ${grace} must be greater than 0`);
    }
  }
}

/** validateLifecycle: postStart and preStop take one action each; sleep counts from 1.30 (PodLifecycleSleepAction on by default). */
export function checkLifecycle(container: Record<string, unknown>, path: Path, ctx: Ctx): void {
  const lifecycle = container.lifecycle;
  if (!isRecord(lifecycle)) return;
  // An unknown version counts sleep, which refuses less.
  const actions = ctx.minor !== undefined && ctx.minor < 30 ? ["exec", "httpGet", "tcpSocket"] : ["exec", "httpGet", "tcpSocket", "sleep"];
  for (const hook of ["postStart", "preStop"]) {
    const handler = lifecycle[hook];
    if (isRecord(handler)) checkHandler(handler, actions, [...path, "lifecycle", hook], ctx);
  }
}

const STANDARD_CONTAINER_RESOURCES = ["cpu", "memory", "ephemeral-storage"];
const isHugePages = (name: string) => name.startsWith("hugepages-");
/** helper.IsNativeResource: unprefixed, or in a kubernetes.io/ domain. */
const isNative = (name: string) => !name.includes("/") || name.includes("kubernetes.io/");
/** helper.IsOvercommitAllowed: native and not hugepages; others need requests equal to limits. */
const overcommits = (name: string) => isNative(name) && !isHugePages(name);

/** validateContainerResourceName: a standard container resource, or a qualified extended resource name. */
function resourceNameProblem(name: string): string | undefined {
  if (isQualifiedName(name).length > 0) return "is not a qualified name";
  if (!name.includes("/")) return STANDARD_CONTAINER_RESOURCES.includes(name) || isHugePages(name) ? undefined : "is not a standard container resource";
  if (isNative(name)) return undefined;
  return name.startsWith("requests.") || isQualifiedName(`requests.${name}`).length > 0 ? "does not follow the extended resource name standard" : undefined;
}

/** helper.IsHugePageResourceValueDivisible: the value (Quantity.Value) is a whole number of the page size the name gives. */
function hugePagesDivisible(name: string, q: Quantity): boolean {
  const page = parseQuantity(name.slice("hugepages-".length));
  if (page === undefined || page.mantissa <= 0n || (toMilli(page) ?? 0n) % 1000n !== 0n) return false;
  const pageBytes = toBytes(page);
  const value = toBytes(q);
  // Past int64 Go's arithmetic wraps; such a value is not judged.
  return pageBytes === undefined || value === undefined || value % pageBytes === 0n;
}

/** SetDefaults_ResourceList rounds every quantity up to a thousandth (Quantity.RoundUp(-3)) before validation. */
function roundUpMilli(q: Quantity): Quantity {
  if (q.exponent >= -3 || q.mantissa === 0n) return q;
  const divisor = 10n ** BigInt(-3 - q.exponent);
  const magnitude = q.mantissa < 0n ? -q.mantissa : q.mantissa;
  const rounded = magnitude / divisor + (magnitude % divisor === 0n ? 0n : 1n);
  return { ...q, mantissa: q.mantissa < 0n ? -rounded : rounded, exponent: -3, text: undefined };
}

const ZERO = parseQuantity("0")!;

/** A resource list's quantities, rounded; a null one is stored as 0. */
function quantities(value: unknown): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  if (!isRecord(value)) return out;
  for (const [name, raw] of Object.entries(value)) {
    const q = raw === null ? ZERO : parseQuantity(raw);
    if (q !== undefined) out.set(name, roundUpMilli(q));
  }
  return out;
}

/** validateResourceRequirements: names, no negative quantity, requests at most limits (equal for extended resources and hugepages). */
export function checkResources(container: Record<string, unknown>, path: Path, ctx: Ctx): void {
  const resources = container.resources;
  if (!isRecord(resources)) return;
  const at = [...path, "resources"];
  const limits = quantities(resources.limits);
  const requests = quantities(resources.requests);
  for (const [field, map] of [["limits", limits] as const, ["requests", requests] as const]) {
    for (const name of isRecord(resources[field]) ? Object.keys(resources[field] as object) : []) {
      const problem = resourceNameProblem(name);
      if (problem)
        report(ctx, [...at, field, name], `${show(name)} ${problem}: use cpu, memory, ephemeral-storage, hugepages-<size>, or a name such as example.com/gpu`);
      const q = map.get(name);
      if (q && q.mantissa < 0n) report(ctx, [...at, field, name], `${field}.${name} is negative: Kubernetes accepts 0 or more`);
      if (q && isHugePages(name) && !hugePagesDivisible(name, q))
        report(ctx, [...at, field, name], `${field}.${name} is not a whole number of ${name.slice("hugepages-".length)} pages`);
    }
  }
  for (const [name, request] of requests) {
    const limit = limits.get(name);
    if (limit === undefined) {
      if (!overcommits(name))
        report(
          ctx,
          [...at, "limits"],
          `${name} is requested without a limit: a resource that cannot be overcommitted needs its limit set, equal to the request`,
        );
    } else if (!overcommits(name) && compareQuantity(request, limit) !== 0)
      report(ctx, [...at, "requests"], `the ${name} request must equal its limit: ${name} cannot be overcommitted`);
    else if (compareQuantity(request, limit) > 0)
      report(ctx, [...at, "requests"], `the ${name} request is more than its limit: Kubernetes accepts requests up to the limit`);
  }
  const names = [...limits.keys(), ...requests.keys()];
  if (names.some(isHugePages) && !names.some((n) => n === "cpu" || n === "memory")) report(ctx, at, "hugepages need a cpu or memory request or limit too");
}
