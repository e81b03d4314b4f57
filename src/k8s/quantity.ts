// Kubernetes resource.Quantity by value: parsed, compared and written back as
// k8s.io/apimachinery/pkg/api/resource does (quantity.go, suffix.go, amount.go,
// math.go, scale_int.go), in bigint arithmetic, never floating point.

export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

/** A parsed quantity: its value is exactly `mantissa × 10^exponent`. */
export interface Quantity {
  readonly mantissa: bigint;
  readonly exponent: number;
  readonly format: QuantityFormat;
  /** Go keeps an int64Amount (the fast path) or an inf.Dec; Value() rounds negative fractions differently in each. */
  readonly form: "int64" | "dec";
  /** The input text Go keeps and writes back unchanged, when it already looks canonical (quantity.go ParseQuantity). */
  readonly text?: string;
}

const MAX_INT64 = (1n << 63n) - 1n;
const SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
/** The errors of quantity.go, word for word. */
export const QUANTITY_ERRORS = {
  format: `quantities must match the regular expression '${SPLIT_RE}'`,
  numeric: "unable to parse numeric part of quantity",
  suffix: "unable to parse quantity's suffix",
} as const;

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const SUFFIX_CHARS = "eEinumkKMGTP";
// Go's strings.TrimSpace, less the spaces encoding/json escapes (they reach UnmarshalJSON as `\t`, `\u2028`, ...).
const JSON_RAW_SPACES = new Set([0x20, 0x85, 0xa0, 0x1680, 0x202f, 0x205f, 0x3000, ...Array.from({ length: 11 }, (_, i) => 0x2000 + i)]);

const i32 = (n: number): number => n | 0;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const abs = (n: bigint): bigint => (n < 0n ? -n : n);
const digitCount = (n: bigint): number => abs(n).toString().length;

/**
 * A quantity as the API server reads it from a manifest (a string, or a YAML number), or undefined.
 * A null is undefined too: in a resources map the server stores it as "0", in a pointer field (sizeLimit) as absent.
 */
export function parseQuantity(input: unknown): Quantity | undefined {
  const parsed = readQuantity(input);
  return typeof parsed === "string" ? undefined : parsed;
}

/** Why the API server rejects `input` as a quantity (quantity.go's error text), or undefined when it is one. */
export function quantityProblem(input: unknown): string | undefined {
  const parsed = readQuantity(input);
  return typeof parsed === "string" ? parsed : undefined;
}

function readQuantity(input: unknown): Quantity | string {
  // UnmarshalJSON: a JSON number is parsed from its text (Go's float format is JavaScript's), a string after TrimSpace.
  if (typeof input === "number") return Number.isFinite(input) ? parseText(String(input)) : QUANTITY_ERRORS.numeric;
  if (typeof input === "bigint") return parseText(String(input));
  if (typeof input !== "string") return QUANTITY_ERRORS.format;
  let start = 0;
  let end = input.length;
  while (start < end && JSON_RAW_SPACES.has(input.charCodeAt(start))) start++;
  while (end > start && JSON_RAW_SPACES.has(input.charCodeAt(end - 1))) end--;
  return parseText(input.slice(start, end));
}

interface Parts {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** quantity.go parseQuantityString: sign, numerator, denominator, suffix; undefined for ErrFormatWrong. */
function scan(str: string): Parts | undefined {
  const end = str.length;
  let pos = 0;
  let positive = true;
  if (str[0] === "-" || str[0] === "+") {
    positive = str[0] === "+";
    pos++;
  }
  while (pos < end && str[pos] === "0") pos++;
  if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
  const numStart = pos;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos >= end) return { positive, value: str, num: str.slice(numStart), denom: "", suffix: "" };
  const num = pos > numStart ? str.slice(numStart, pos) : "0";
  let denom = "";
  if (str[pos] === ".") {
    const denomStart = ++pos;
    while (pos < end && isDigit(str[pos])) pos++;
    denom = str.slice(denomStart, pos);
    if (pos >= end) return { positive, value: str, num, denom, suffix: "" };
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.includes(str[pos])) pos++;
  if (pos < end && (str[pos] === "-" || str[pos] === "+")) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  return pos >= end ? { positive, value, num, denom, suffix: str.slice(suffixStart) } : undefined;
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

/** suffix.go interpret: the SI tables, then `e`/`E` and a Go int64 exponent truncated to int32. */
function interpret(suffix: string): Suffix | undefined {
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) return { base: 10, exponent: DECIMAL_SUFFIXES[suffix], format: "DecimalSI" };
  if (Object.hasOwn(BINARY_SUFFIXES, suffix)) return { base: 2, exponent: BINARY_SUFFIXES[suffix], format: "BinarySI" };
  if (suffix.length < 2 || (suffix[0] !== "e" && suffix[0] !== "E")) return undefined;
  const exponent = parseInt64(suffix.slice(1));
  return exponent === undefined ? undefined : { base: 10, exponent: Number(BigInt.asIntN(32, exponent)), format: "DecimalExponent" };
}

/** strconv.ParseInt(s, 10, 64): an optional sign, decimal digits, in range. */
function parseInt64(s: string): bigint | undefined {
  const sign = s[0] === "-" || s[0] === "+" ? 1 : 0;
  let i = sign;
  if (i >= s.length) return undefined;
  for (let j = i; j < s.length; j++) if (!isDigit(s[j])) return undefined;
  while (i < s.length - 1 && s[i] === "0") i++;
  if (s.length - i > 19) return undefined;
  const n = s[0] === "-" ? -BigInt(s.slice(i)) : BigInt(s.slice(i));
  return n > MAX_INT64 || n < -MAX_INT64 - 1n ? undefined : n;
}

/** quantity.go ParseQuantity. */
function parseText(str: string): Quantity | string {
  if (str.length === 0) return QUANTITY_ERRORS.format;
  if (str === "0") return { mantissa: 0n, exponent: 0, format: "DecimalSI", form: "int64", text: str };
  const parts = scan(str);
  if (parts === undefined) return QUANTITY_ERRORS.format;
  const suffix = interpret(parts.suffix);
  if (suffix === undefined) return QUANTITY_ERRORS.suffix;
  return fastPath(str, parts, suffix) ?? slowPath(parts, suffix);
}

/** ParseQuantity's int64 path: exact, and it keeps canonical-looking text as written. */
function fastPath(str: string, { positive, num, denom }: Parts, { exponent, format }: Suffix): Quantity | undefined {
  let scale = 0;
  let precision: number;
  let factor = 1n;
  if (format !== "BinarySI") {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  } else if (denom.length === 0) {
    factor = 1n << BigInt(exponent);
    precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
  } else precision = -1;
  if (precision < 0) return undefined;
  scale = i32(scale - denom.length);
  if (scale < -9) return undefined;
  const shifted = num + denom;
  const value = BigInt(shifted);
  const magnitude = value * factor;
  if (magnitude > MAX_INT64) return undefined;
  const keep = format === "BinarySI" ? exponent % 10 === 0 && (value & 7n) !== 0n : scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
  return { mantissa: positive ? magnitude : -magnitude, exponent: scale, format, form: "int64", ...(keep ? { text: str } : {}) };
}

/** ParseQuantity's inf.Dec path: rounded up to 1n, BinarySI capped at 2^63-1. */
function slowPath({ positive, value }: Parts, { base, exponent, format }: Suffix): Quantity | string {
  const dot = value.indexOf(".");
  const digits = value.replace(/^[+-]/, "").replace(".", "");
  if (!/^[0-9]+$/.test(digits)) return QUANTITY_ERRORS.numeric;
  let mantissa = BigInt(digits);
  let scale = dot < 0 ? 0 : value.length - dot - 1;
  if (base === 10) scale = i32(scale + i32(-exponent));
  else mantissa <<= BigInt(exponent);
  if (mantissa !== 0n && scale > 9) {
    mantissa = divideRoundingUp(mantissa, scale - 9);
    scale = 9;
  }
  if (format === "BinarySI" && scale <= 9 && mantissa > MAX_INT64 * 10n ** BigInt(scale)) {
    mantissa = MAX_INT64;
    scale = 0;
  }
  const belowOne = format === "BinarySI" && mantissa !== 0n && scale >= 0 && scale <= 9 && mantissa < 10n ** BigInt(scale);
  return { mantissa: positive ? mantissa : -mantissa, exponent: -scale, format: belowOne ? "DecimalSI" : format, form: "dec" };
}

/** ceil(n / 10^places) for n > 0, without building 10^places when it exceeds n. */
function divideRoundingUp(n: bigint, places: number): bigint {
  if (digitCount(n) <= places) return 1n;
  const divisor = 10n ** BigInt(places);
  return n / divisor + (n % divisor === 0n ? 0n : 1n);
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`, by exact value (Quantity.Cmp). */
export function compareQuantity(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const sa = a.mantissa === 0n ? 0 : a.mantissa < 0n ? -1 : 1;
  const sb = b.mantissa === 0n ? 0 : b.mantissa < 0n ? -1 : 1;
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const order = compareMagnitude(abs(a.mantissa), a.exponent, abs(b.mantissa), b.exponent);
  return sa > 0 || order === 0 ? order : (-order as -1 | 1);
}

function compareMagnitude(m1: bigint, e1: number, m2: bigint, e2: number): -1 | 0 | 1 {
  const o1 = digitCount(m1) + e1;
  const o2 = digitCount(m2) + e2;
  if (o1 !== o2) return o1 < o2 ? -1 : 1;
  // The same order of magnitude: the exponents differ by at most the digits, so aligning is cheap.
  const x = e1 > e2 ? m1 * 10n ** BigInt(e1 - e2) : m1;
  const y = e2 > e1 ? m2 * 10n ** BigInt(e2 - e1) : m2;
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Whether two quantities have the same value, whatever their spelling ("2048Mi" and "2Gi"). */
export function quantityEquals(a: Quantity, b: Quantity): boolean {
  return compareQuantity(a, b) === 0;
}

/** Quantity.Value(): rounded up as Kubernetes rounds; undefined where Go's int64 would overflow. */
export function toBytes(q: Quantity): bigint | undefined {
  return scaledValue(q, 0);
}

/** Quantity.MilliValue(): the value in thousandths, rounded up as Kubernetes rounds; undefined past int64. */
export function toMilli(q: Quantity): bigint | undefined {
  return scaledValue(q, 3);
}

/** amount.go AsScaledInt64 (away from zero) and scale_int.go scaledValue (inf.Dec: truncate, then add one). */
function scaledValue(q: Quantity, places: number): bigint | undefined {
  const { mantissa } = q;
  if (mantissa === 0n) return 0n;
  const exponent = q.exponent + places;
  if (digitCount(mantissa) + exponent > 19) return undefined;
  let result: bigint;
  if (exponent >= 0) result = mantissa * 10n ** BigInt(exponent);
  else {
    const divisor = 10n ** BigInt(-exponent);
    const truncated = mantissa / divisor;
    const fraction = mantissa % divisor !== 0n;
    result = !fraction ? truncated : q.form === "dec" || mantissa > 0n ? truncated + 1n : truncated - 1n;
  }
  return result > MAX_INT64 || result < -MAX_INT64 - 1n ? undefined : result;
}

/** The text the API server stores and returns for `q` (Quantity.String, CanonicalizeBytes). */
export function canonical(q: Quantity): string {
  if (q.text !== undefined) return q.text;
  if (q.mantissa === 0n) return "0";
  let format = q.format;
  if (format === "BinarySI") {
    const small = compareMagnitude(abs(q.mantissa), q.exponent, 1024n, 0) < 0;
    if (small || !isInteger(q)) format = "DecimalSI";
  }
  if (format === "BinarySI") {
    // Binary values are within int64 here, so their integer value is small.
    let n = q.exponent >= 0 ? q.mantissa * 10n ** BigInt(q.exponent) : q.mantissa / 10n ** BigInt(-q.exponent);
    let times = 0;
    while (abs(n) >= 1024n && n % 1024n === 0n) {
      n /= 1024n;
      times++;
    }
    return `${n}${["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][times] ?? ""}`;
  }
  const [number, exponent] = canonicalDecimal(q);
  if (format === "DecimalExponent") return exponent === 0 ? number : `${number}e${exponent}`;
  const suffix = Object.keys(DECIMAL_SUFFIXES).find((s) => DECIMAL_SUFFIXES[s] === exponent);
  return number + (suffix ?? ""); // Go drops a suffix it has no name for: 1000E is written "1"
}

function isInteger(q: Quantity): boolean {
  if (q.exponent >= 0) return true;
  const digits = abs(q.mantissa).toString();
  return digits.length > -q.exponent && /^0+$/.test(digits.slice(q.exponent));
}

/** AsCanonicalBytes: factors of ten moved into the exponent, then the exponent lowered to a multiple of three. */
function canonicalDecimal(q: Quantity): [string, number] {
  const digits = abs(q.mantissa).toString();
  let end = digits.length;
  while (end > 1 && digits[end - 1] === "0") end--;
  let exponent = q.form === "int64" ? i32(q.exponent + (digits.length - end)) : q.exponent + (digits.length - end);
  const r = ((exponent % 3) + 3) % 3;
  exponent -= r;
  return [`${q.mantissa < 0n ? "-" : ""}${digits.slice(0, end)}${"0".repeat(r)}`, exponent];
}
