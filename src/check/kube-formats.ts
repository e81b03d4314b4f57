// Leaf values judged as the API server decodes them: resource.Quantity's
// grammar, and the upstream schema's formats (byte, int32, int64, date-time)
// with ajv-formats' validators, narrowed where Go's decoder is stricter.
import { fullFormats } from "ajv-formats/dist/formats.js";
import { quantityProblem as parseProblem } from "../k8s/quantity.ts";

/** The formats kube-schemas records per field (`x`, scripts/gen-kube-schemas.mjs). */
export type CheckedFormat = "byte" | "int32" | "int64" | "date-time";

/** Why a quantity written as a string is refused (resource.ParseQuantity's grammar, src/k8s/quantity.ts), or undefined. */
export function quantityProblem(value: string): string | undefined {
  if (parseProblem(value) === undefined) return undefined;
  return `${JSON.stringify(value)} is not a quantity: Kubernetes reads a number with an optional suffix (500m, 128Mi, 2Gi, 1e3)`;
}

type Check = (value: unknown) => boolean;
const validator = (name: "byte" | "int32" | "date-time"): Check => {
  const format = fullFormats[name];
  const validate = typeof format === "function" ? format : (format as { validate: (value: never) => boolean }).validate;
  return validate as Check;
};
const ajvByte = validator("byte");
const ajvInt32 = validator("int32");
const ajvDateTime = validator("date-time");

/** Go's StdEncoding alphabet; its decoder skips \r and \n, and ajv's expression (m flag) would pass a line of garbage after them. */
const NOT_BASE64 = /[^A-Za-z0-9+/=]/;
/** time.Parse(time.RFC3339) takes an upper-case T and Z and a colon in the offset, where ajv also takes t, z, a space and +0100. */
const GO_RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/;
const INT64_BOUND = 2 ** 63;

const CHECKS: Record<CheckedFormat, { accepts: (value: unknown) => boolean; expected: string }> = {
  byte: {
    accepts: (value) => typeof value !== "string" || ((text) => !NOT_BASE64.test(text) && ajvByte(text))(value.replace(/[\r\n]/g, "")),
    expected: "base64 (the standard alphabet, padded with =; stringData takes plain text)",
  },
  int32: { accepts: (value) => typeof value !== "number" || ajvInt32(value), expected: "an int32, from -2147483648 to 2147483647" },
  // Around 2^63 a double cannot tell the last valid int64 from the first invalid one: only what is surely beyond.
  int64: { accepts: (value) => typeof value !== "number" || Math.abs(value) <= INT64_BOUND, expected: "an int64, from -2^63 to 2^63-1" },
  "date-time": {
    // Go parses seconds up to 59: ajv's leap second 23:59:60 is refused.
    accepts: (value) => typeof value !== "string" || (GO_RFC3339.test(value) && ajvDateTime(value) && value.slice(17, 19) !== "60"),
    expected: "an RFC 3339 time such as 2024-01-31T12:00:00Z",
  },
};

/** Why a value of the right JSON type breaks its field's format, or undefined. */
export function formatProblem(format: string, value: unknown): string | undefined {
  const check = Object.hasOwn(CHECKS, format) ? CHECKS[format as CheckedFormat] : undefined;
  if (!check || check.accepts(value)) return undefined;
  const shown = typeof value === "string" && value.length > 64 ? `${JSON.stringify(value.slice(0, 64))}… (${value.length} characters)` : JSON.stringify(value);
  return `${shown} is not ${check.expected}`;
}

/** Why a leaf value of the right JSON type is refused: a quantity's grammar, an int-or-string's int32, its field's format. */
export function leafProblem(type: string, value: unknown, format: string | undefined): string | undefined {
  if (type === "quantity") return typeof value === "string" ? quantityProblem(value) : undefined;
  // IntOrString.UnmarshalJSON decodes a number into its int32 IntVal.
  if (type === "int-or-string") return formatProblem("int32", value);
  return format === undefined ? undefined : formatProblem(format, value);
}
