// An IntOrString such as maxSurge or maxUnavailable as a number of replicas, as
// k8s.io/apimachinery/pkg/util/intstr/intstr.go GetScaledValueFromIntOrPercent computes it.

const MAX_INT64 = (1n << 63n) - 1n;

/** An integer as given, or a percentage of `total` rounded up or down; undefined where Kubernetes returns an error. */
export function scaledValue(intOrPercent: unknown, total: number, roundUp: boolean): number | undefined {
  if (typeof intOrPercent === "number") return isInt32(intOrPercent) ? intOrPercent : undefined;
  const percent = percentOf(intOrPercent);
  if (percent === undefined) return undefined;
  // Go computes in float64: float64(value) * float64(total) / 100, then Ceil or Floor.
  const scaled = (Number(percent) * total) / 100;
  const value = roundUp ? Math.ceil(scaled) : Math.floor(scaled);
  return Number.isFinite(value) ? value : undefined;
}

/** The integer before `%` (intstr.go getIntOrPercentValueSafely, strconv.Atoi), or undefined for any other text. */
export function percentOf(intOrPercent: unknown): bigint | undefined {
  if (typeof intOrPercent !== "string" || !intOrPercent.endsWith("%")) return undefined;
  const digits = intOrPercent.slice(0, -1);
  const sign = digits[0] === "+" || digits[0] === "-" ? 1 : 0;
  if (digits.length === sign) return undefined;
  for (let i = sign; i < digits.length; i++) if (digits[i] < "0" || digits[i] > "9") return undefined;
  let start = sign;
  while (start < digits.length - 1 && digits[start] === "0") start++;
  if (digits.length - start > 19) return undefined;
  const magnitude = BigInt(digits.slice(start));
  const value = digits[0] === "-" ? -magnitude : magnitude;
  return value > MAX_INT64 || value < -MAX_INT64 - 1n ? undefined : value;
}

/** IntOrString's IntVal is an int32: a JSON number outside it, or with a fraction, fails to decode. */
function isInt32(n: number): boolean {
  return Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31;
}
