// Values pieces more than one profile uses: URLs, resources, scheduling,
// egress and Secret references. Each carries its requirement ID.
import { z } from "zod";
import { ipFamily } from "../k8s/ip.ts";
import { isLabelKey, isLabelValue, objectKey } from "../k8s/names.ts";
import { once, refineBy, refused, req, tagged, transformBy, type IssueSink } from "./values.ts";

/** An absolute https:// URL with no userinfo, query or fragment. */
export const httpsUrl = (id: string, what: string) =>
  refineBy(z.string(req(id, "expected a URL string", `${what} is an absolute https:// URL`)), checkHttpsUrl, id, what);

export function checkHttpsUrl(text: string, ctx: IssueSink, id: string, what: string): void {
  const problem = httpsUrlProblem(text);
  if (problem)
    ctx.addIssue({
      code: "custom",
      input: text,
      message: tagged(id, problem, `${what} is an absolute https:// URL with no userinfo, query or fragment, such as https://compass.example.com`),
    });
}

export function httpsUrlProblem(text: string): string | undefined {
  const unsafe = urlTextProblem(text);
  if (unsafe) return unsafe;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "is not an absolute URL";
  }
  if (url.protocol !== "https:") return `uses ${url.protocol.replace(":", "")}://, not https://`;
  if (url.username || url.password) return "carries userinfo (user:password@)";
  if (url.search || text.includes("?")) return "carries a query";
  if (url.hash || text.includes("#")) return "carries a fragment";
  if (!url.hostname) return "has no host";
  return undefined;
}

/** Why a URL's text is not the URL it reads as: the parser drops tabs, line breaks and edge spaces that the rendered value would keep. */
export function urlTextProblem(text: string): string | undefined {
  const found = /[\u0000-\u0020\u007f-\u009f]/.exec(text);
  if (!found) return undefined;
  const c = found[0];
  const code = `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  const what = c === " " ? "a space" : c === "\t" ? `a tab (${code})` : c === "\n" || c === "\r" ? `a line break (${code})` : `a control character (${code})`;
  return `holds ${what}, which a URL cannot`;
}

/** Any absolute http(s) URL, for OTLP collectors inside the cluster. */
export const endpointUrl = (id: string, what: string) => refineBy(z.string(), checkEndpointUrl, id, what);

export function checkEndpointUrl(text: string, ctx: IssueSink, id: string, what: string): void {
  const unsafe = urlTextProblem(text);
  if (unsafe) {
    ctx.addIssue({
      code: "custom",
      input: text,
      message: tagged(id, unsafe, `${what} is a URL such as http://otel-collector.observability:4318, without white space or control characters`),
    });
    return;
  }
  let ok = false;
  try {
    const url = new URL(text);
    ok = (url.protocol === "https:" || url.protocol === "http:") && !url.username && !url.password;
  } catch {}
  if (!ok)
    ctx.addIssue({
      code: "custom",
      input: text,
      message: tagged(id, "is not an absolute http:// or https:// URL without userinfo", `${what} is a URL such as http://otel-collector.observability:4318`),
    });
}

const QUANTITY = /^[+]?(\d+(\.\d*)?|\.\d+)(m|k|Ki|Mi|Gi|Ti|Pi|Ei|M|G|T|P|E|e[+-]?\d+)?$/;
const quantity = (id: string) =>
  transformBy(
    z.union([
      z.string().regex(QUANTITY, req(id, "is not a Kubernetes quantity", "write a Kubernetes quantity such as 500m, 1, 256Mi or 2Gi")),
      z.number().nonnegative(),
    ]),
    quantityText,
  );

/** A quantity as the API server writes it: always a string. */
export function quantityText(quantity: string | number): string {
  return String(quantity);
}

/** requests.{cpu,memory} and limits.memory are required (G-08); limits.cpu optional. */
export const resourcesSchema = (id: string, defaults: { requests: { cpu: string; memory: string }; limits: { memory: string; cpu?: string } }) =>
  z
    .strictObject({
      requests: z.strictObject({ cpu: quantity(id), memory: quantity(id) }),
      limits: z.strictObject({ memory: quantity(id), cpu: quantity(id).optional() }),
    })
    .default(defaults)
    .meta({ description: `CPU and memory requests and limits. Default: ${JSON.stringify(defaults)}` });

export type Resources = z.output<ReturnType<typeof resourcesSchema>>;

/** nodeSelector: label keys and values as the API server validates them. */
export const nodeSelectorSchema = (id: string) =>
  z.record(
    z
      .string()
      .refine(
        isLabelKey,
        req(id, "is not a valid label key", "a node selector key is a label key: an optional DNS prefix and '/', then up to 63 of [A-Za-z0-9_.-]"),
      ),
    z
      .string(req(id, "node selector values are strings; quote numbers and booleans"))
      .refine(isLabelValue, req(id, "is not a valid label value", "a label value is up to 63 of [A-Za-z0-9_.-], starting and ending alphanumeric")),
  );

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;

/** A toleration, from a node taint; operator and effect are enums. */
export const tolerationSchema = (id: string) =>
  refineBy(
    z.strictObject({
      key: z
        .string()
        .refine(isLabelKey, req(id, "is not a valid taint key", "a toleration key is a label key, as on the node's taint"))
        .optional(),
      operator: z.enum(["Exists", "Equal"], req(id, "operator is Exists or Equal")).default("Equal"),
      value: z
        .string()
        .refine(isLabelValue, req(id, "is not a valid taint value", "a taint value is up to 63 of [A-Za-z0-9_.-]"))
        .optional(),
      effect: z.enum(TAINT_EFFECTS, req(id, "effect is NoSchedule, PreferNoSchedule or NoExecute")).optional(),
      tolerationSeconds: z.number().int().optional(),
    }),
    checkToleration,
    id,
  );

export type Toleration = z.output<ReturnType<typeof tolerationSchema>>;

export function checkToleration(
  t: { key?: string; operator: string; value?: string; effect?: string; tolerationSeconds?: number },
  ctx: IssueSink,
  id: string,
): void {
  if (t.operator === "Exists" && t.value !== undefined)
    ctx.addIssue({ code: "custom", path: ["value"], message: tagged(id, "is set with operator Exists", "remove value, or use operator Equal") });
  if (t.operator === "Equal" && t.key === undefined)
    ctx.addIssue({
      code: "custom",
      path: ["key"],
      message: tagged(id, "is missing with operator Equal", "give the taint key, or use operator Exists to tolerate every taint"),
    });
  if (t.tolerationSeconds !== undefined && t.effect !== "NoExecute")
    ctx.addIssue({
      code: "custom",
      path: ["tolerationSeconds"],
      message: tagged(id, "is set without effect NoExecute", "tolerationSeconds only applies to NoExecute taints"),
    });
}

/** A CIDR such as 10.0.0.0/8 or 2001:db8::/32. */
export function cidrProblem(text: string): string | undefined {
  const [address, bits, extra] = text.split("/");
  const family = ipFamily(address ?? "");
  if (extra !== undefined || bits === undefined || family === 0) return "is not a CIDR such as 10.0.0.0/8";
  const max = family === 4 ? 32 : 128;
  if (!/^\d+$/.test(bits) || Number(bits) > max) return `has a prefix length outside 0..${max}`;
  return undefined;
}

/** A CIDR under requirement `id`; `fix` says what range to give. */
export const cidrSchema = (id: string, fix: string) => refineBy(z.string(), checkCidr, id, fix);

export function checkCidr(text: string, ctx: IssueSink, id: string, fix: string): void {
  const problem = cidrProblem(text);
  if (problem) ctx.addIssue({ code: "custom", input: text, message: tagged(id, problem, fix) });
}

/** An egress destination the NetworkPolicy allows, beside DNS and the Server. */
export const egressRuleSchema = (id: string) =>
  z.strictObject({
    cidr: cidrSchema(id, "give an IP range in CIDR notation; NetworkPolicy cannot match host names"),
    ports: z
      .array(
        z.strictObject({
          port: z.number().int().min(1, req(id, "a port is 1..65535")).max(65535, req(id, "a port is 1..65535")),
          protocol: z.enum(["TCP", "UDP", "SCTP"], req(id, "protocol is TCP, UDP or SCTP")).default("TCP"),
        }),
      )
      .min(1, req(id, "list at least one port, or leave ports out to allow every port"))
      .optional(),
  });

export type EgressRule = z.output<ReturnType<typeof egressRuleSchema>>;

/** A reference to one key of a Secret (G-04: never the value itself). */
export const secretKeyRef = (id: string, defaultKey: string) =>
  z.strictObject({
    name: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, req(id, "is not a Secret name", "name the Secret by its Kubernetes name")),
    key: objectKey(id, "name the key of the Secret that holds the value").default(defaultKey),
  });

const HARDENED =
  "rigging sets the hardened security context (non-root, read-only root, no privilege escalation, all capabilities dropped, seccomp); it cannot be loosened from values";

/** Keys every profile refuses with the requirement they would break (G-06, G-09). */
export const hardeningGuards = once(() => ({
  securityContext: refused("G-06", HARDENED),
  podSecurityContext: refused("G-06", HARDENED),
  privileged: refused("G-06", HARDENED),
  capabilities: refused("G-06", HARDENED),
  imagePullSecrets: refused("G-09", "remove it: the images are public and read anonymously (decision D9 of the Compass Server-on-Kubernetes design)"),
  namespaceLabels: refused(
    "G-10",
    "remove it: the rendered Namespace carries the Pod Security level its pods pass (restricted, or privileged for the Compass Runner), set by rigging",
  ),
  podSecurityLevel: refused(
    "G-10",
    "remove it: the rendered Namespace carries the Pod Security level its pods pass (restricted, or privileged for the Compass Runner), set by rigging",
  ),
}));
