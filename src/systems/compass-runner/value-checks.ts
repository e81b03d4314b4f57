// Single-value checks of Runner values: host paths, the Server CA, the KVM
// resource name, the seccomp profile path and egress rules, each with its
// requirement ID.
import { X509Certificate } from "node:crypto";
import { posix } from "node:path";
import { cleanPath, sameOrUnder } from "../../k8s/clean-path.ts";
import { DNS1123_SUBDOMAIN } from "../../k8s/names.ts";
import { splitPem } from "../../parse/pem.ts";
import { z } from "zod";
import { ipFamily } from "../../k8s/ip.ts";
import { cidrSchema } from "../../values/common-values.ts";
import { fail, once, refineBy, req, tagged, type IssueSink } from "../../values/values.ts";
import { type Capacity, DEFAULT_SECCOMP_PROFILE, derived, FORBIDDEN_HOST_ROOTS, GRACE_MAX } from "./interface.ts";

export const integer = (id: string, what: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .number(req(id, "expected a number", `${what} is a JSON number, not a string`))
    .int(req(id, `${what} is a whole number`))
    .min(min, req(id, `${what} is ${min} or more${max < Number.MAX_SAFE_INTEGER ? ` and at most ${max}` : ""}`))
    .max(max, req(id, `${what} is at most ${max}`));

/** Why a host path is unfit for a Runner host tree, if it is (CR-11). */
export function hostPathProblem(path: string): string | undefined {
  if (!path.startsWith("/")) return "is not an absolute path";
  if (path.includes("\0")) return "contains a NUL character";
  if (posix.normalize(path) !== path || (path.length > 1 && path.endsWith("/")))
    return `is not normalized (write ${posix.normalize(path).replace(/(.)\/$/, "$1")})`;
  if (path === "/") return "is the host root";
  const under = FORBIDDEN_HOST_ROOTS.find((root) => path === root || path.startsWith(`${root}/`));
  if (under) return `is under ${under}, which a Runner must never mount`;
  return undefined;
}

/** Whether a hostPath is /dev or under it, by value (`/dev/./kvm`, `//dev//kvm/`): CR-08's, whatever else it breaks. */
export function isDevHostPath(path: unknown): path is string {
  return typeof path === "string" && path.startsWith("/") && sameOrUnder(path, "/dev");
}

export function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

const DEV_FIX =
  "give a host directory such as /srv/compass/sessions; /dev/kvm comes from the device plugin's resource, kvmResourceName (such as devices.kubelet.io/kvm), which the container requests and limits at 1";

export function checkHostPath(path: string, ctx: IssueSink): void {
  // /dev in any spelling is CR-08's: KVM comes from the device plugin, never a hostPath.
  if (!path.includes("\0") && isDevHostPath(path)) {
    ctx.addIssue({
      code: "custom",
      input: path,
      message: tagged("CR-08", `is ${cleanPath(path) === "/dev" ? "" : "under "}/dev, which no hostPath may be`, DEV_FIX),
    });
    return;
  }
  const problem = hostPathProblem(path);
  if (problem)
    ctx.addIssue({
      code: "custom",
      input: path,
      message: tagged(
        "CR-11",
        problem,
        "use an absolute, normalized host directory such as /srv/compass/sessions, outside /dev, /proc, /sys, /etc and /var/run/secrets",
      ),
    });
}

export function pemProblem(pem: string): string | undefined {
  const { blocks, rest } = splitPem(pem, "CERTIFICATE");
  if (blocks.length === 0) return "holds no PEM certificate";
  if (rest.trim() !== "") return "holds text besides PEM certificates (a private key?)";
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return `certificate ${index + 1} does not parse`;
    }
  }
  return undefined;
}

export const CA_FIX = "give the Server CA as PEM certificates (pem), or the name of a ConfigMap or Secret holding ca.crt";

export function checkPem(pem: string, ctx: IssueSink): void {
  const problem = pemProblem(pem);
  if (problem) ctx.addIssue({ code: "custom", input: pem, message: tagged("CR-14", problem, CA_FIX) });
}

/** The upstream tool's kvmResourceName rule: domain/name, not in kubernetes.io (CR-08). */
export function resourceNameProblem(name: string): string | undefined {
  const slash = name.indexOf("/");
  if (slash < 0 || name.indexOf("/", slash + 1) >= 0) return "is not domain/name";
  const domain = name.slice(0, slash);
  const local = name.slice(slash + 1);
  if (!domain.includes(".") || domain.length > 253 || !DNS1123_SUBDOMAIN.test(domain) || domain.split(".").some((l) => l.length > 63))
    return `has domain ${domain}, which is not a DNS-qualified lowercase name`;
  if (domain === "kubernetes.io" || domain.endsWith(".kubernetes.io")) return "is in the kubernetes.io domain, which extended resources may not use";
  if (local.length === 0 || local.length > 63 || !/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(local))
    return `has name ${local}, which is not a resource name`;
  return undefined;
}

export function checkResourceName(name: string, ctx: IssueSink): void {
  const problem = resourceNameProblem(name);
  if (problem)
    ctx.addIssue({
      code: "custom",
      input: name,
      message: tagged("CR-08", problem, "give the device plugin's extended resource name as domain/name, such as devices.kubevirt.io/kvm"),
    });
}

export function checkSeccompProfilePath(path: string, ctx: IssueSink): void {
  const problem =
    path === ""
      ? "is empty"
      : path.startsWith("/")
        ? "is absolute"
        : path.split("/").includes("..")
          ? "contains .."
          : !path.endsWith(".json")
            ? "does not end in .json"
            : undefined;
  if (problem)
    ctx.addIssue({
      code: "custom",
      input: path,
      message: tagged("CR-10", problem, `give the profile's path relative to the kubelet seccomp root, such as ${DEFAULT_SECCOMP_PROFILE}`),
    });
}

/** egressAllow (D7) feeds both `--egress-allow` and the NetworkPolicy; a DNS name needs its cidr since a NetworkPolicy cannot match names. */
export const runnerEgressSchema = once(() =>
  refineBy(
    z.strictObject({
      host: refineBy(z.string(), checkEgressHost)
        .optional()
        .meta({ description: "A DNS name or IP literal the sessions may reach: passed to the Runner's --egress-allow" }),
      cidr: cidrSchema("CR-15", "give an IP range in CIDR notation such as 203.0.113.0/24")
        .optional()
        .meta({ description: "The address range the NetworkPolicy allows (for a host name: the range it resolves to)" }),
      ports: z
        .array(
          z.strictObject({
            port: integer("CR-15", "port", 1, 65535),
            protocol: z.enum(["TCP", "UDP", "SCTP"], req("CR-15", "protocol is TCP, UDP or SCTP")).default("TCP"),
          }),
        )
        .min(1, req("CR-15", "list at least one port, or leave ports out to allow every port"))
        .optional(),
    }),
    checkEgressRule,
  ),
);

export function checkEgressHost(host: string, ctx: IssueSink): void {
  if ((host.length > 253 || !DNS1123_SUBDOMAIN.test(host)) && ipFamily(host) === 0)
    ctx.addIssue({
      code: "custom",
      input: host,
      message: tagged("CR-15", "is not a DNS name or IP literal", "give a host name such as api.github.com or an IP address; no scheme, port or comma"),
    });
}

export function checkEgressRule(rule: { host?: string; cidr?: string }, ctx: IssueSink): void {
  if (rule.host === undefined && rule.cidr === undefined)
    fail(ctx, [], "CR-15", "names no destination", "give host (for the sessions' allowlist), cidr (for the NetworkPolicy), or both");
  else if (rule.cidr === undefined && rule.host !== undefined && ipFamily(rule.host) === 0) {
    fail(ctx, ["host"], "CR-15", `is a DNS name, which a NetworkPolicy cannot match`, `add cidr: the address range ${rule.host} resolves to`);
  }
}

export type RunnerEgress = z.output<ReturnType<typeof runnerEgressSchema>>;

/** The NetworkPolicy range of an egressAllow entry: its cidr, or its IP literal host. */
export function egressCidr(rule: RunnerEgress): string | undefined {
  if (rule.cidr) return rule.cidr;
  const family = rule.host ? ipFamily(rule.host) : 0;
  return family === 4 ? `${rule.host}/32` : family === 6 ? `${rule.host}/128` : undefined;
}

/** 8 PiB: in bytes the largest size a double holds exactly, and the rules compare sizes in bytes. */
const MEMORY_MAX_MIB = 2 ** 33;

/** CR-19: the numbers derived from capacity stay within what Kubernetes holds. */
export function checkDerived(v: Capacity, ctx: IssueSink, at: PropertyKey[]): void {
  const numbers = derived(v);
  for (const [key, value, limit] of [
    ["sessionCapacity", numbers.memoryMiB, MEMORY_MAX_MIB],
    ["guestCpus", numbers.cpu, Number.MAX_SAFE_INTEGER],
    ["perSessionReapSeconds", numbers.graceSeconds, GRACE_MAX],
  ] as const) {
    if (value > limit)
      fail(
        ctx,
        [...at, key],
        "CR-19",
        `gives a derived ${key === "perSessionReapSeconds" ? "grace period" : key === "guestCpus" ? "cpu request" : "memory size"} of ${value}${key === "sessionCapacity" ? " MiB" : ""}, above ${limit}${key === "sessionCapacity" ? " MiB (8 PiB)" : ""}`,
        "lower the capacity numbers",
      );
  }
}
