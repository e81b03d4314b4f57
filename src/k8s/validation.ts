// The API server's name, label and address validators, as k8s.io/apimachinery writes them
// (pkg/util/validation, pkg/api/validate/content, pkg/api/validation): each returns upstream's
// messages, none when the value is valid. Every check scans the text once; no regular expression.
import { type Cidr, parseCIDR } from "./cidr.ts";

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_KEY_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** Go's len(): the UTF-8 bytes of a string. */
export function byteLength(value: string): number {
  return Buffer.byteLength(value, "utf8");
}

const code = (s: string, i: number) => s.charCodeAt(i);
const isDigit = (c: number) => c >= 48 && c <= 57;
const isLower = (c: number) => c >= 97 && c <= 122;
const isUpper = (c: number) => c >= 65 && c <= 90;
const isLowerAlnum = (c: number) => isLower(c) || isDigit(c);
const isAlnum = (c: number) => isLowerAlnum(c) || isUpper(c);
const DASH = 45;
const DOT = 46;
const UNDERSCORE = 95;

/** Whether every character of s[from, to) passes `ok`. */
function every(s: string, from: number, to: number, ok: (c: number) => boolean): boolean {
  for (let i = from; i < to; i++) if (!ok(code(s, i))) return false;
  return true;
}

/** s[from, to) matches `first ([-a-z0-9]* [a-z0-9])?`, the shape of both DNS labels. */
function labelShape(s: string, from: number, to: number, first: (c: number) => boolean): boolean {
  if (to <= from || !first(code(s, from)) || !isLowerAlnum(code(s, to - 1))) return false;
  return every(s, from, to, (c) => isLowerAlnum(c) || c === DASH);
}

function subdomainShape(s: string): boolean {
  let start = 0;
  for (let i = 0; i <= s.length; i++) {
    if (i < s.length && code(s, i) !== DOT) continue;
    if (!labelShape(s, start, i, isLowerAlnum)) return false;
    start = i + 1;
  }
  return true;
}

/** `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`: a label key's name part, and a non-empty label value. */
function keyShape(s: string): boolean {
  if (s.length === 0 || !isAlnum(code(s, 0)) || !isAlnum(code(s, s.length - 1))) return false;
  return every(s, 0, s.length, (c) => isAlnum(c) || c === DASH || c === UNDERSCORE || c === DOT);
}

// k8s.io/apimachinery/pkg/util/validation/validation.go RegexError
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${fmt}')`;
}

// k8s.io/apimachinery/pkg/util/validation/validation.go MaxLenError ("characters"); pkg/api/validate/content/errors.go MaxLenError ("bytes")
const maxLenError = (length: number, unit: "characters" | "bytes" = "characters") => `must be no more than ${length} ${unit}`;
const EMPTY_ERROR = "must be non-empty";

// k8s.io/apimachinery/pkg/util/validation/validation.go IsDNS1123Label
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!labelShape(value, 0, value.length, isLowerAlnum)) {
    if (subdomainShape(value)) errs.push("must not contain dots");
    else
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          DNS1123_LABEL_FMT,
          "my-name",
          "123-abc",
        ),
      );
  }
  return errs;
}

// k8s.io/apimachinery/pkg/util/validation/validation.go IsDNS1123Subdomain (content.IsDNS1123Subdomain counts "bytes")
export function isDNS1123Subdomain(value: string, unit: "characters" | "bytes" = "characters"): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253, unit));
  if (!subdomainShape(value))
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        "example.com",
      ),
    );
  return errs;
}

/** One character of Go's unicode.IsSpace (strings.Fields, strings.TrimSpace): not U+FEFF, which JavaScript's \s takes. */
export const GO_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

// k8s.io/apimachinery/pkg/util/validation/validation.go IsWildcardDNS1123Subdomain: "*." and a subdomain
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!value.startsWith("*.") || !subdomainShape(value.slice(2)))
    errs.push(
      regexError(
        "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character",
        `\\*\\.${DNS1123_SUBDOMAIN_FMT}`,
        "*.example.com",
      ),
    );
  return errs;
}

// k8s.io/apimachinery/pkg/util/validation/validation.go IsDNS1035Label
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!labelShape(value, 0, value.length, isLower))
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        "my-name",
        "abc-123",
      ),
    );
  return errs;
}

// k8s.io/apimachinery/pkg/api/validate/content/kube.go IsLabelKey (validation.IsQualifiedName)
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const slash = value.indexOf("/");
  if (slash >= 0 && value.indexOf("/", slash + 1) >= 0) {
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const name = slash < 0 ? value : value.slice(slash + 1);
  if (slash >= 0) {
    const prefix = value.slice(0, slash);
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else errs.push(...isDNS1123Subdomain(prefix, "bytes").map((m) => `prefix part ${m}`));
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63, "bytes")}`);
  if (!keyShape(name)) errs.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}

// k8s.io/apimachinery/pkg/api/validate/content/kube.go IsLabelValue (validation.IsValidLabelValue)
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63, "bytes"));
  if (value.length > 0 && !keyShape(value))
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        "MyValue",
        "my_value",
        "12345",
      ),
    );
  return errs;
}

// k8s.io/apimachinery/pkg/util/validation/validation.go IsValidPortName
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (byteLength(port) > 15) errs.push(maxLenError(15));
  if (port.length === 0 || !every(port, 0, port.length, (c) => isLowerAlnum(c) || c === DASH))
    errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (every(port, 0, port.length, (c) => !isLower(c))) errs.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errs.push("must not contain consecutive hyphens");
  if (port.length > 0 && (port.startsWith("-") || port.endsWith("-"))) errs.push("must not begin or end with a hyphen");
  return errs;
}

// k8s.io/apimachinery/pkg/util/validation/validation.go InclusiveRangeError
const inclusiveRangeError = (lo: number, hi: number) => `must be between ${lo} and ${hi}, inclusive`;

// k8s.io/apimachinery/pkg/util/validation/validation.go IsValidPortNum
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

// k8s.io/apimachinery/pkg/util/validation/validation.go IsInRange
export function isInRange(value: number, min: number, max: number): string[] {
  return value >= min && value <= max ? [] : [inclusiveRangeError(min, max)];
}

// k8s.io/apimachinery/pkg/api/validate/content/identifier.go IsCIdentifier
export function isCIdentifier(value: string): string[] {
  const ok = value.length > 0 && !isDigit(code(value, 0)) && every(value, 0, value.length, (c) => isAlnum(c) || c === UNDERSCORE);
  return ok
    ? []
    : [
        regexError(
          "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
          "[A-Za-z_][A-Za-z0-9_]*",
          "my_name",
          "MY_NAME",
          "MyName",
        ),
      ];
}

// k8s.io/apimachinery/pkg/util/validation/validation.go hasChDirPrefix
function hasChDirPrefix(value: string): string[] {
  if (value === ".") return ["must not be '.'"];
  if (value === "..") return ["must not be '..'"];
  return value.startsWith("..") ? ["must not start with '..'"] : [];
}

const isEnvChar = (c: number) => isAlnum(c) || c === DASH || c === DOT || c === UNDERSCORE;

// k8s.io/apimachinery/pkg/util/validation/validation.go IsEnvVarName (before RelaxedEnvironmentVariableValidation)
export function isEnvVarName(value: string): string[] {
  const ok = value.length > 0 && !isDigit(code(value, 0)) && every(value, 0, value.length, isEnvChar);
  const errs = ok
    ? []
    : [
        regexError(
          "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
          "[-._a-zA-Z][-._a-zA-Z0-9]*",
          "my.env-name",
          "MY_ENV.NAME",
          "MyEnvName1",
        ),
      ];
  return [...errs, ...hasChDirPrefix(value)];
}

// k8s.io/apimachinery/pkg/util/validation/validation.go IsRelaxedEnvVarName: printable ASCII (space included) but '='
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push(`environment variable name ${EMPTY_ERROR}`);
  if (!every(value, 0, value.length, (c) => c >= 0x20 && c <= 0x7e && c !== 61))
    errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
  return errs;
}

// k8s.io/apimachinery/pkg/util/validation/validation.go IsConfigMapKey
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (value.length === 0 || !every(value, 0, value.length, isEnvChar))
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", "[-._a-zA-Z0-9]+", "key.name", "KEY_NAME", "key-name"));
  return [...errs, ...hasChDirPrefix(value)];
}

// k8s.io/apimachinery/pkg/util/validation/validation.go IsHTTPHeaderName
export function isHTTPHeaderName(value: string): string[] {
  const ok = value.length > 0 && every(value, 0, value.length, (c) => isAlnum(c) || c === DASH);
  return ok ? [] : [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", "[-A-Za-z0-9]+", "X-Header-Name")];
}

// k8s.io/apimachinery/pkg/util/validation/validation.go IsValidPercent
export function isValidPercent(percent: string): string[] {
  const ok = percent.length > 1 && percent.endsWith("%") && every(percent, 0, percent.length - 1, isDigit);
  return ok ? [] : [regexError("a valid percent string must be a numeric string followed by an ending '%'", "[0-9]+%", "1%", "93%")];
}

// k8s.io/apimachinery/pkg/api/validate/content/path.go IsPathSegmentName
export function isPathSegmentName(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  return isPathSegmentPrefix(name);
}

// k8s.io/apimachinery/pkg/api/validate/content/path.go IsPathSegmentPrefix
export function isPathSegmentPrefix(name: string): string[] {
  return ["/", "%"].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

// k8s.io/apimachinery/pkg/api/validation/path/name.go ValidatePathSegmentName
export function validatePathSegmentName(name: string, prefix: boolean): string[] {
  return prefix ? isPathSegmentPrefix(name) : isPathSegmentName(name);
}

/**
 * k8s.io/apimachinery/pkg/api/validation/generic.go maskTrailingDash, which drops the dash and the
 * byte before it. Go slices bytes: a name with other than ASCII fails whatever is dropped, so only
 * the dash is dropped from it here.
 */
export function maskTrailingDash(name: string): string {
  if (name.length <= 1 || !name.endsWith("-")) return name;
  return every(name, 0, name.length, (c) => c < 0x80) ? `${name.slice(0, -2)}a` : `${name.slice(0, -1)}a`;
}

// k8s.io/apimachinery/pkg/api/validation/generic.go NameIsDNSSubdomain
export const nameIsDNSSubdomain = (name: string, prefix: boolean) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
// k8s.io/apimachinery/pkg/api/validation/generic.go NameIsDNSLabel
export const nameIsDNSLabel = (name: string, prefix: boolean) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
// k8s.io/apimachinery/pkg/api/validation/generic.go NameIsDNS1035Label
export const nameIsDNS1035Label = (name: string, prefix: boolean) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** An IP address: family 4 (32 bits) or 6 (128 bits, IPv4-mapped ones included). */
export interface IP {
  family: 4 | 6;
  value: bigint;
}

/** k8s.io/utils/net ParseIPSloppy (Go 1.16's net.ParseIP: leading zeros allowed), or undefined. */
export function parseIPSloppy(value: string): IP | undefined {
  const cidr = parseCIDR(`${value}/0`, { sloppy: true });
  return cidr && { family: cidr.family, value: cidr.address };
}

/** net/netip ParseAddr without a zone (no leading zeros, at most 4 hex digits a group), or undefined. */
function parseAddr(value: string): IP | undefined {
  const cidr = parseCIDR(`${value}/0`);
  return cidr && { family: cidr.family, value: cidr.address };
}

/** k8s.io/utils/net ParseCIDRSloppy: host bits, leading zeros and IPv4-mapped addresses allowed. */
export function parseCIDRSloppy(value: string): Cidr | undefined {
  return parseCIDR(value, { sloppy: true });
}

/** net/netip Addr.Is4In6: ::ffff:a.b.c.d. */
export const is4In6 = (ip: IP): boolean => ip.family === 6 && ip.value >> 32n === 0xffffn;

/** Go's net.IP String: dotted for IPv4 and IPv4-mapped addresses, RFC 5952 for the rest. */
export function ipString(ip: IP): string {
  if (ip.family === 4 || is4In6(ip)) {
    const v = Number(ip.value & 0xffffffffn);
    return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join(".");
  }
  const groups = Array.from({ length: 8 }, (_, i) => Number((ip.value >> BigInt(112 - 16 * i)) & 0xffffn));
  // The first longest run of two or more zero groups becomes "::" (net/netip appendTo6).
  let zeroStart = -1;
  let zeroEnd = -1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i >= 2 && j - i > zeroEnd - zeroStart) [zeroStart, zeroEnd] = [i, j];
  }
  const hex = (from: number, to: number) => groups.slice(from, to).map((g) => g.toString(16));
  return zeroStart < 0 ? hex(0, 8).join(":") : `${hex(0, zeroStart).join(":")}::${hex(zeroEnd, 8).join(":")}`;
}

// k8s.io/apimachinery/pkg/util/validation/ip.go IsValidIPForLegacyField (strictValidation: the StrictIPCIDRValidation gate)
export function isValidIPForLegacyField(value: string, strictValidation: boolean): string[] {
  if (parseIPSloppy(value) === undefined) return ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"];
  if (!strictValidation) return [];
  const addr = parseAddr(value);
  if (addr === undefined) return ["must not have leading 0s"];
  return is4In6(addr) ? ["must not be an IPv4-mapped IPv6 address"] : [];
}

// k8s.io/apimachinery/pkg/util/validation/ip.go IsValidIP
export function isValidIP(value: string): string[] {
  const errs = isValidIPForLegacyField(value, true);
  if (errs.length > 0) return errs;
  const canonical = ipString(parseIPSloppy(value)!);
  return value === canonical ? [] : [`must be in canonical form (${JSON.stringify(canonical)})`];
}

// k8s.io/apimachinery/pkg/util/validation/ip.go IsValidCIDRForLegacyField
export function isValidCIDRForLegacyField(value: string, strictValidation: boolean): string[] {
  if (parseCIDRSloppy(value) === undefined) return ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"];
  if (!strictValidation) return [];
  // net/netip ParsePrefix: the address as ParseAddr reads it, the length without a sign or leading zero.
  const prefix = parseCIDR(value);
  const bits = value.slice(value.lastIndexOf("/") + 1);
  if (prefix === undefined || (bits.length > 1 && !(bits[0] >= "1" && bits[0] <= "9"))) return ["must not have leading 0s in IP or prefix length"];
  if (is4In6({ family: prefix.family, value: prefix.address })) return ["must not have an IPv4-mapped IPv6 address"];
  return prefix.address !== prefix.first ? ["must not have bits set beyond the prefix length"] : [];
}

// k8s.io/apimachinery/pkg/util/validation/ip.go IsValidCIDR
export function isValidCIDR(value: string): string[] {
  const errs = isValidCIDRForLegacyField(value, true);
  if (errs.length > 0) return errs;
  const cidr = parseCIDRSloppy(value)!;
  const canonical = `${ipString({ family: cidr.family, value: cidr.first })}/${cidr.prefix}`;
  return value === canonical ? [] : [`must be in canonical form (${JSON.stringify(canonical)})`];
}

// k8s.io/kubernetes/pkg/apis/core/validation/validation.go ValidateEndpointIP (net.IP's methods read IPv4-mapped addresses as IPv4)
export function validateEndpointIP(value: string): string[] {
  const ip = parseIPSloppy(value);
  if (ip === undefined) return ["must be a valid IP address"];
  const v4 = ip.family === 4 || is4In6(ip) ? Number(ip.value & 0xffffffffn) : undefined;
  const top = Number(ip.value >> 112n);
  const errs: string[] = [];
  if (v4 === undefined ? ip.value === 0n : v4 === 0) errs.push(`may not be unspecified (${value})`);
  if (v4 === undefined ? ip.value === 1n : v4 >>> 24 === 127) errs.push("may not be in the loopback range (127.0.0.0/8, ::1/128)");
  if (v4 === undefined ? (top & 0xffc0) === 0xfe80 : v4 >>> 16 === 0xa9fe) errs.push("may not be in the link-local range (169.254.0.0/16, fe80::/10)");
  if (v4 === undefined ? (top & 0xff0f) === 0xff02 : v4 >>> 8 === 0xe00000) errs.push("may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)");
  return errs;
}
