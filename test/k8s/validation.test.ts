// The apimachinery validators against upstream's own cases: the good and bad lists of
// k8s.io/apimachinery/pkg/util/validation/validation_test.go and ip_test.go (v0.36.3), word for word.
import { describe, expect, it } from "vitest";
import {
  isConfigMapKey,
  isDNS1035Label,
  isWildcardDNS1123Subdomain,
  isDNS1123Label,
  isDNS1123Subdomain,
  isEnvVarName,
  isHTTPHeaderName,
  isInRange,
  isPathSegmentName,
  isQualifiedName,
  isRelaxedEnvVarName,
  isValidCIDR,
  isValidCIDRForLegacyField,
  isValidIP,
  isValidIPForLegacyField,
  isValidLabelValue,
  isValidPercent,
  isValidPortName,
  isValidPortNum,
  maskTrailingDash,
  nameIsDNSSubdomain,
  validateEndpointIP,
  validatePathSegmentName,
} from "../../src/k8s/validation.ts";

const a = (n: number) => "a".repeat(n);

function lists(fn: (v: string) => string[], good: readonly string[], bad: readonly string[]) {
  for (const value of good) expect(fn(value), JSON.stringify(value)).toEqual([]);
  for (const value of bad) expect(fn(value).length, JSON.stringify(value)).toBeGreaterThan(0);
}

describe("DNS names (validation_test.go)", () => {
  it("IsDNS1123Label", () => {
    lists(
      isDNS1123Label,
      ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2", a(63)],
      [
        ...["", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a", "a_b", "1_", "_1", "1_2"],
        ...[".", "a.", ".a", "a.b", "1.", ".1", "1.2", " ", "a ", " a", "a b", "1 ", " 1", "1 2", a(64)],
      ],
    );
  });

  it("IsDNS1123Subdomain", () => {
    lists(
      isDNS1123Subdomain,
      [
        ...["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2"],
        ...["a.a", "ab.a", "abc.a", "a1.a", "a-1.a", "a--1--2--b.a", "a.1", "ab.1", "abc.1", "a1.1", "a-1.1", "a--1--2--b.1"],
        ...["0.a", "01.a", "012.a", "1a.a", "1-a.a", "1--a--b--2", "0.1", "01.1", "012.1", "1a.1", "1-a.1", "1--a--b--2.1"],
        ...["a.b.c.d.e", "aa.bb.cc.dd.ee", "1.2.3.4.5", "11.22.33.44.55", a(253)],
      ],
      [
        ...["", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a", "a_b", "1_", "_1", "1_2"],
        ...[".", "a.", ".a", "a..b", "1.", ".1", "1..2", " ", "a ", " a", "a b", "1 ", " 1", "1 2"],
        ...["A.a", "aB.a", "ab.A", "A1.a", "a1.A", "A.1", "aB.1", "A1.1", "1A.1", "0.A", "01.A", "012.A", "1A.a", "1a.A"],
        ...["A.B.C.D.E", "AA.BB.CC.DD.EE", "a.B.c.d.e", "aa.bB.cc.dd.ee", "a@b", "a,b", "a_b", "a;b", "a:b", "a%b", "a?b", "a$b", a(254)],
      ],
    );
  });

  it("IsDNS1035Label", () => {
    lists(
      isDNS1035Label,
      ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", a(63)],
      [
        ...["0", "01", "012", "1a", "1-a", "1--a--b--2", "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1"],
        ...["_", "a_", "_a", "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a.b", "1.", ".1", "1.2", " ", "a ", " a", "a b", "1 ", " 1", "1 2", a(64)],
      ],
    );
  });
});

describe("qualified names and label values (validation_test.go)", () => {
  it("IsQualifiedName", () => {
    lists(
      isQualifiedName,
      [
        ...["simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple", "now-with-dashes/simple", "now-with-dashes/now-with-dashes"],
        ...["now.with.dots/simple", "now-with.dashes-and.dots/simple", "1-num.2-num/3-num", "1234/5678", "1.2.3.4/5678", "Uppercase_Is_OK_123"],
        ...["example.com/Uppercase_Is_OK_123", "requests.storage-foo", a(63), `${a(253)}/${"b".repeat(63)}`],
      ],
      [
        ...["nospecialchars%^=@", "cantendwithadash-", "-cantstartwithadash-", "only/one/slash", "Example.com/abc", "example_com/abc"],
        ...["example.com/", "/simple", a(64), `${a(254)}/abc`],
      ],
    );
  });

  it("IsValidLabelValue", () => {
    lists(
      isValidLabelValue,
      ["simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234", a(63), ""],
      [
        "nospecialchars%^=@",
        "Tama-nui-te-rā.is.Māori.sun",
        "\\backslashes\\are\\bad",
        "-starts-with-dash",
        "ends-with-dash-",
        ".starts.with.dot",
        "ends.with.dot.",
        a(64),
      ],
    );
  });
});

describe("ports and other formats (validation_test.go)", () => {
  it("IsValidPortName and IsValidPortNum", () => {
    lists(
      isValidPortName,
      ["telnet", "re-mail-ck", "pop3", "a", "a-1", "1-a", "a-1-b-2-c", "1-a-2-b-3"],
      ["longerthan15characters", "", a(16), "12345", "1-2-3-4", "-begin", "end-", "two--hyphens", "whois++"],
    );
    for (const port of [1, 2, 1000, 16384, 32768, 65535]) expect(isValidPortNum(port)).toEqual([]);
    for (const port of [0, -1, 65536, 100000]) expect(isValidPortNum(port)).toEqual(["must be between 1 and 65535, inclusive"]);
  });

  it("IsInRange", () => {
    for (const [v, min, max] of [
      [1, 0, 10],
      [5, 5, 20],
      [25, 10, 25],
    ])
      expect(isInRange(v, min, max)).toEqual([]);
    for (const [v, min, max] of [
      [1, 2, 10],
      [5, -4, 2],
      [25, 100, 120],
    ])
      expect(isInRange(v, min, max).length).toBe(1);
  });
});

describe("header names, percents, config keys, relaxed variable names (validation_test.go)", () => {
  it("IsHTTPHeaderName, IsValidPercent, IsConfigMapKey, IsRelaxedEnvVarName", () => {
    lists(
      isHTTPHeaderName,
      [
        ...["Accept-Encoding", "Host", "If-Modified-Since", "X-Forwarded-For", "a", "ab", "abc", "a1", "-a", "a-", "a-b", "a-1", "a--1--2--b", "--abc-123"],
        ...["A", "AB", "AbC", "A1", "-A", "A-", "A-B", "A-1", "A--1--2--B", "--123-ABC"],
      ],
      [
        ...["Host:", "X-Forwarded-For:", "X-@Home", "", "_", "a_", "_a", "1_", "1_2", ".", "a.", ".a", "a.b", "1.", ".1", "1.2"],
        ...[" ", "a ", " a", "a b", "1 ", " 1", "1 2", "#a#", "^", ",", ";", "=", "<", "?", "@", "{"],
      ],
    );
    lists(
      isValidPercent,
      ["0%", "00000%", "1%", "01%", "99%", "100%", "101%"],
      ["", "0", "100", "0.0%", "99.9%", "hundred", " 1%", "1% ", "-0%", "-1%", "+1%"],
    );
    lists(
      isConfigMapKey,
      ["a", "good", "good-good", "still.good", "this.is.also.good", ".so.is.this", "THIS_IS_GOOD", "so_is_this_17"],
      [".", "..", "..bad", "b*d", "bad!&bad"],
    );
    lists(
      isRelaxedEnvVarName,
      [
        "-",
        ":",
        "_",
        "+a",
        ">a",
        "<a",
        "a.",
        "a..",
        "*a",
        "%a",
        "?a",
        "a:a",
        "a_a",
        "aAz",
        "~a",
        "|a",
        "a0a",
        "a9",
        "/a",
        "a ",
        "#a",
        "0a",
        "0 a",
        "'a",
        "(a",
        "@a",
      ],
      ["", "=", "a=", "1=a", "a=b", "#%=&&", `${String.fromCharCode(1)}abc`, `${String.fromCharCode(130)}abc`, "Ç ç", "Ä ä", "Ñ ñ", "Ø ø"],
    );
  });
});

describe("messages, as upstream words them", () => {
  it("names the rule and its regular expression", () => {
    expect(isDNS1123Subdomain("Server_server-499")).toEqual([
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    expect(isDNS1123Label("a.b")).toEqual(["must not contain dots"]);
    expect(isDNS1123Label(a(64))).toEqual(["must be no more than 63 characters"]);
    expect(isDNS1035Label("9web")).toEqual([
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(isWildcardDNS1123Subdomain("*.example.com")).toEqual([]);
    for (const host of ["*.*.example.com", "*example.com", "f*.example.com", "*", "*.Example.com"])
      expect(isWildcardDNS1123Subdomain(host)).toEqual([
        "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ]);
    expect(isQualifiedName("/simple")).toEqual(["prefix part must be non-empty"]);
    expect(isQualifiedName("example.com/")).toEqual([
      "name part must be non-empty",
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    expect(isQualifiedName(`${a(254)}/abc`)).toEqual(["prefix part must be no more than 253 bytes"]);
    expect(isValidLabelValue(a(64))).toEqual(["must be no more than 63 bytes"]);
    expect(isValidPortName("HTTP_1")).toEqual([
      "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
      "must contain at least one letter (a-z)",
    ]);
    expect(isPathSegmentName("a/b")).toEqual(["may not contain '/'"]);
    expect(isPathSegmentName("..")).toEqual(["may not be '..'"]);
    expect(validatePathSegmentName("..", true)).toEqual([]);
    expect(isEnvVarName("..a")).toEqual(["must not start with '..'"]);
  });

  it("masks a generateName's trailing dash as generic.go does (dropping the character before it too)", () => {
    expect(maskTrailingDash("web-")).toBe("wea");
    expect(maskTrailingDash("-")).toBe("-");
    expect(nameIsDNSSubdomain("web-", true)).toEqual([]);
    expect(nameIsDNSSubdomain("web-", false).length).toBe(1);
  });

  it("scans a long value once, without a regular expression to backtrack", () => {
    const long = `${"a-".repeat(500_000)}_`;
    const start = performance.now();
    for (const fn of [isDNS1123Label, isDNS1123Subdomain, isDNS1035Label, isQualifiedName, isValidLabelValue, isValidPortName])
      expect(fn(long).length).toBeGreaterThan(0);
    expect(performance.now() - start).toBeLessThan(2000);
  });
});

/** ip_test.go TestIsValidIP: input, IsValidIP's error, the legacy field's error, and the strict legacy field's. */
const IPS: [string, string, string, string][] = [
  ["1.2.3.4", "", "", ""],
  ["0.0.0.0", "", "", ""],
  ["255.255.255.255", "", "", ""],
  ["1234::abcd", "", "", ""],
  ["::", "", "", ""],
  ["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "", "", ""],
  ["0:0:0:0:0:0:0:0", `must be in canonical form ("::")`, "", ""],
  ["0001:002:03:4::", `must be in canonical form ("1:2:3:4::")`, "", ""],
  ["1234::ABCD", `must be in canonical form ("1234::abcd")`, "", ""],
  ["1.1.1.01", "must not have leading 0s", "", "must not have leading 0s"],
  ["::ffff:1.1.1.1", "must not be an IPv4-mapped IPv6 address", "", "must not be an IPv4-mapped IPv6 address"],
  ...[
    ...["", "aaaaaaa", "myhost.mydomain", "1.2.3.0/24", "1.2.3.400", "-1.0.0.0", "2001:db8::10005", "1.2.3.4:80", "[2001:db8::1]", "[2001:db8::1]:80"],
    ...["example.com:80", "1234::abcd%eth0", "169.254.0.0%eth0"],
  ].map((ip): [string, string, string, string] => [ip, "must be a valid IP address", "must be a valid IP address", "must be a valid IP address"]),
];

/** ip_test.go TestIsValidCIDR, the same columns. */
const CIDRS: [string, string, string, string][] = [
  ["1.0.0.0/8", "", "", ""],
  ["0.0.0.0/0", "", "", ""],
  ["1.1.1.1/32", "", "", ""],
  ["2001:4860:4860::/48", "", "", ""],
  ["::/0", "", "", ""],
  ["::1/128", "", "", ""],
  ["2a00:79e0:2:0::/64", `must be in canonical form ("2a00:79e0:2::/64")`, "", ""],
  ["2001:DB8::/64", `must be in canonical form ("2001:db8::/64")`, "", ""],
  ["1.1.01.0/24", "must not have leading 0s in IP", "", "must not have leading 0s in IP"],
  ["::ffff:1.1.1.0/24", "must not have an IPv4-mapped IPv6 address", "", "must not have an IPv4-mapped IPv6 address"],
  ["::ffff:1.1.1.0/120", "must not have an IPv4-mapped IPv6 address", "", "must not have an IPv4-mapped IPv6 address"],
  ["1.2.3.4/24", "must not have bits set beyond the prefix length", "", "must not have bits set beyond the prefix length"],
  ["2001:db8::1/64", "must not have bits set beyond the prefix length", "", "must not have bits set beyond the prefix length"],
  ["192.168.0.0/016", "must not have leading 0s", "", "must not have leading 0s"],
  ...["", "aaaaaaa", "1.2.3.4", "192.168.0.1/healthz", "192.168.0.1/0/99", "192.168.0.0/-16", "192.168.0.0/+16"].map((c): [string, string, string, string] => [
    c,
    "must be a valid CIDR value",
    "must be a valid CIDR value",
    "must be a valid CIDR value",
  ]),
];

function expectOne(errs: string[], contains: string, input: string) {
  if (contains === "") expect(errs, input).toEqual([]);
  else {
    expect(errs.length, input).toBe(1);
    expect(errs[0], input).toContain(contains);
  }
}

describe("addresses (ip_test.go)", () => {
  it.each(IPS)("IsValidIP, IsValidIPForLegacyField: %j", (input, strict, legacy, legacyStrict) => {
    expectOne(isValidIP(input), strict, input);
    expectOne(isValidIPForLegacyField(input, false), legacy, input);
    expectOne(isValidIPForLegacyField(input, true), legacyStrict, input);
  });

  it.each(CIDRS)("IsValidCIDR, IsValidCIDRForLegacyField: %j", (input, strict, legacy, legacyStrict) => {
    expectOne(isValidCIDR(input), strict, input);
    expectOne(isValidCIDRForLegacyField(input, false), legacy, input);
    expectOne(isValidCIDRForLegacyField(input, true), legacyStrict, input);
  });

  it("ValidateEndpointIP refuses unspecified, loopback and link-local addresses, IPv4-mapped ones too", () => {
    expect(validateEndpointIP("203.0.113.7")).toEqual([]);
    expect(validateEndpointIP("2001:db8::7")).toEqual([]);
    expect(validateEndpointIP("0.0.0.0")).toEqual(["may not be unspecified (0.0.0.0)"]);
    expect(validateEndpointIP("::")).toEqual(["may not be unspecified (::)"]);
    expect(validateEndpointIP("127.0.0.2")).toEqual(["may not be in the loopback range (127.0.0.0/8, ::1/128)"]);
    expect(validateEndpointIP("::ffff:127.0.0.1")).toEqual(["may not be in the loopback range (127.0.0.0/8, ::1/128)"]);
    expect(validateEndpointIP("::1")).toEqual(["may not be in the loopback range (127.0.0.0/8, ::1/128)"]);
    expect(validateEndpointIP("169.254.169.254")).toEqual(["may not be in the link-local range (169.254.0.0/16, fe80::/10)"]);
    expect(validateEndpointIP("fe80::1")).toEqual(["may not be in the link-local range (169.254.0.0/16, fe80::/10)"]);
    expect(validateEndpointIP("224.0.0.251")).toEqual(["may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"]);
    expect(validateEndpointIP("ff02::fb")).toEqual(["may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"]);
    expect(validateEndpointIP("010.1.1.1")).toEqual([]);
  });
});
