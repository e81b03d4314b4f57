// References to Secrets by name (and key), the only way a secret reaches
// the Compass Server (G-04, CS-04). rigging never renders a Secret object.
import { z } from "zod";
import { DNS1123_SUBDOMAIN, objectKey } from "../../k8s/names.ts";
import { req, tagged } from "../../values/values.ts";

const secretName = (id: string) =>
  z
    .string(req(id, "expected a Secret name", "name the Secret by its Kubernetes name"))
    .max(253, req(id, "a Secret name is at most 253 characters"))
    .regex(DNS1123_SUBDOMAIN, req(id, "is not a Secret name", "a Secret name is a DNS-1123 subdomain such as compass-database"));

const secretKey = (id: string) => objectKey(id, "name the key of the Secret that holds the value");

/** The error of a reference that is missing or written inline. */
function referenceError(id: string, what: string, example: string) {
  return (issue: z.core.$ZodRawIssue) => {
    if (issue.code !== "invalid_type") return undefined;
    if (issue.input === undefined) return tagged(id, "is missing", `name the Secret that holds ${what}: ${example}`);
    if (typeof issue.input === "string" || typeof issue.input === "number") {
      return tagged("G-04", "is an inline value, not a reference to a Secret", `put ${what} in a Secret and reference it: ${example}`);
    }
    return tagged(id, "expected a Secret reference", example);
  };
}

/** `{name, key}`: one key of one Secret, read through secretKeyRef or a Secret volume. */
export const secretKeyReference = (id: string, what: string, defaultKey: string, extra: z.core.$ZodShape = {}) =>
  z.strictObject(
    { name: secretName(id), key: secretKey(id).default(defaultKey), ...extra },
    { error: referenceError(id, what, `{name: <secret>, key: ${defaultKey}}`) },
  );

/** `{secretName}`: a whole Secret whose keys are fixed (a kubernetes.io/tls Secret). */
export const secretReference = (id: string, what: string) =>
  z.strictObject({ secretName: secretName(id) }, { error: referenceError(id, what, "{secretName: <secret>}") });
