// Kubernetes name and label syntax, as the API server checks it
// (apimachinery validation: DNS-1123 labels and subdomains, qualified names).
import { z } from "zod";
import { refineBy, req, tagged, type IssueSink } from "../values/values.ts";

export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** Dot-joined labels without a repeated group, whose backtracking overflowed the stack on long input. */
export const DNS1123_SUBDOMAIN = /^(?!.*(?:\.\.|\.-|-\.))[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function isLabelKey(key: string): boolean {
  const slash = key.indexOf("/");
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) return false;
  return name.length <= 63 && QUALIFIED_NAME.test(name);
}

/** An annotation key, as apimachinery's ValidateAnnotations judges it: a qualified name once lowercased. */
export function isAnnotationKey(key: string): boolean {
  return isLabelKey(key.toLowerCase());
}

/** apimachinery's TotalAnnotationSizeLimitB: the bytes of every key and value of one object's annotations. */
export const ANNOTATIONS_BYTES = 256 * 1024;

/** The bytes an object's annotations take against ANNOTATIONS_BYTES (Go counts UTF-8 bytes). */
export function annotationsBytes(annotations: Readonly<Record<string, string>>): number {
  let total = 0;
  for (const [key, value] of Object.entries(annotations)) total += Buffer.byteLength(key) + Buffer.byteLength(value);
  return total;
}

/** Annotations the API server accepts, under requirement `id`: qualified-name keys, at most 256 KiB in all. */
export const annotationsSchema = (id: string) =>
  refineBy(
    z.record(
      z
        .string()
        .refine(
          isAnnotationKey,
          req(
            id,
            "is not a valid annotation key",
            "an annotation key is an optional DNS prefix and '/', then up to 63 of [A-Za-z0-9_.-], starting and ending alphanumeric",
          ),
        ),
      z.string(req(id, "annotation values are strings; quote numbers and booleans")),
    ),
    checkAnnotationsSize,
    id,
  );

export function checkAnnotationsSize(annotations: Record<string, string>, ctx: IssueSink, id: string): void {
  const bytes = annotationsBytes(annotations);
  if (bytes > ANNOTATIONS_BYTES)
    ctx.addIssue({
      code: "custom",
      input: annotations,
      message: tagged(
        id,
        `take ${bytes} bytes, over the API server's limit of ${ANNOTATIONS_BYTES} bytes (256 KiB) for an object's annotations`,
        "shorten or remove annotations",
      ),
    });
}

/** What the API server refuses in an object's `metadata.annotations`, read from a manifest: each with the key it concerns. */
export function annotationProblems(annotations: unknown): { key?: string; message: string }[] {
  if (annotations === undefined || annotations === null) return [];
  // Types (a mapping, string values) are the schema rule's, for every object.
  if (typeof annotations !== "object" || Array.isArray(annotations)) return [];
  const problems: { key?: string; message: string }[] = [];
  for (const key of Object.keys(annotations)) {
    if (!isAnnotationKey(key)) problems.push({ key, message: `${JSON.stringify(key)} is not a valid annotation key` });
  }
  const strings = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [key, String(value)]));
  const bytes = annotationsBytes(strings);
  if (bytes > ANNOTATIONS_BYTES)
    problems.push({ message: `annotations take ${bytes} bytes, over the API server's limit of ${ANNOTATIONS_BYTES} bytes (256 KiB)` });
  return problems;
}

export function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

const OBJECT_KEY = /^[-._a-zA-Z0-9]+$/;

/** Why `key` cannot key a Secret or ConfigMap, as the API server judges it. */
export function objectKeyProblem(key: string): string | undefined {
  if (key.length > 253) return "is longer than 253 characters";
  if (!OBJECT_KEY.test(key)) return key === "" ? "is empty" : "holds a character other than [-._a-zA-Z0-9]";
  if (key === "." || key === "..") return `is \`${key}\``;
  if (key.startsWith("..")) return "starts with `..`";
  return undefined;
}

export const OBJECT_KEY_RULE = "a key is 1 to 253 of [-._a-zA-Z0-9], not `.` or `..`, and does not start with `..`";

/** A key of a Secret or ConfigMap, under requirement `id`; `fix` leads the fix, which ends with the key rule. */
export const objectKey = (id: string, fix: string) => refineBy(z.string(req(id, `${fix}; ${OBJECT_KEY_RULE}`)), checkObjectKey, id, fix);

export function checkObjectKey(key: string, ctx: IssueSink, id: string, fix: string): void {
  const problem = objectKeyProblem(key);
  if (problem) ctx.addIssue({ code: "custom", input: key, message: tagged(id, problem, `${fix}; ${OBJECT_KEY_RULE}`) });
}

/** A namespace or other DNS-1123 label name, under requirement `id`. */
export const dnsLabel = (id: string, what: string) =>
  z
    .string()
    .max(63, req(id, `${what} is a DNS-1123 label of at most 63 characters`))
    .regex(DNS1123_LABEL, req(id, "is not a DNS-1123 label", `${what} is a DNS-1123 label: lowercase letters, digits and '-'`));

/** A ServiceAccount or other DNS-1123 subdomain name. */
export const dnsSubdomain = (id: string, what: string) =>
  z
    .string()
    .max(253, req(id, `${what} is a DNS-1123 subdomain of at most 253 characters`))
    .regex(DNS1123_SUBDOMAIN, req(id, "is not a DNS-1123 subdomain", `${what} is a DNS-1123 subdomain: lowercase letters, digits, '-' and '.'`));

/** A DNS host name (for TLS server names), not an IP and not a URL. */
export const hostName = (id: string, what: string) =>
  z
    .string()
    .max(253, req(id, `${what} is a DNS name of at most 253 characters`))
    .regex(DNS1123_SUBDOMAIN, req(id, "is not a DNS name", `${what} is a lowercase DNS name such as compass.example.com, without a scheme or port`));

/** The groups the ServiceAccount token authenticator gives every ServiceAccount of `namespace`. */
export const serviceAccountGroups = (namespace: string): string[] => ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"];

/** A ServiceAccount as the API server sees it: its user name and groups. */
export const serviceAccountIdentity = (namespace: string, name: string): { user: string; groups: string[] } => ({
  user: `system:serviceaccount:${namespace}:${name}`,
  groups: serviceAccountGroups(namespace),
});
