// ipFamily (src/k8s/ip.ts) answers node:net's isIP without loading node:net
// for a string with no ':'. It must give node:net's answer for any string.
import { isIP } from "node:net";
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { expect, it } from "vitest";
import { HOST_UNCHANGED, ipFamily } from "../../src/k8s/ip.ts";
import { runs } from "../support/runs.ts";

const RUNS = runs(3000);

/** A part of a dotted address: near 0 and 255, leading zeros, long runs of digits, and a few other characters. */
const part = fc.oneof(
  fc.integer({ min: 0, max: 300 }).map(String),
  fc.stringMatching(/^[0-9]{1,12}$/),
  fc.constantFrom("", "00", "01", "010", "0x1", "1e1", " 1", "1 ", "٣", "１", "+1", "-1"),
);

it("gives node:net's answer for dotted numbers", async () => {
  await fc.assert(
    loopProperty(fc.array(part, { minLength: 1, maxLength: 6 }), fc.constantFrom("", ".", "\n", "%eth0", ":80"), (parts, tail) => {
      const text = parts.join(".") + tail;
      expect(ipFamily(text), JSON.stringify(text)).toBe(isIP(text));
    }),
    { numRuns: RUNS },
  );
});

it("gives node:net's answer for any short text of address characters, IPv6 ones too", async () => {
  const chars = fc.constantFrom(..."0123456789abcdefABCDEF.:%/ x".split(""));
  await fc.assert(
    loopProperty(fc.string({ unit: chars, maxLength: 40 }), (text) => {
      expect(ipFamily(text), JSON.stringify(text)).toBe(isIP(text));
    }),
    { numRuns: RUNS },
  );
  for (const text of [
    "1.2.3.4",
    "0.0.0.0",
    "255.255.255.255",
    "256.0.0.0",
    "1.2.3.04",
    "1.2.3",
    "1.2.3.4.",
    "::1",
    "::ffff:1.2.3.4",
    "fe80::1%eth0",
    "10.0.0.1/8",
    "",
  ])
    expect(ipFamily(text), JSON.stringify(text)).toBe(isIP(text));
});

it("asks the URL host parser the same question either way: node:url's domainToASCII (Node) and a URL's host (Bun)", async () => {
  await fc.assert(
    loopProperty(fc.array(part, { minLength: 4, maxLength: 4 }), (parts) => {
      const text = parts.join(".");
      expect(HOST_UNCHANGED.url(text), JSON.stringify(text)).toBe(HOST_UNCHANGED.domainToASCII(text));
    }),
    { numRuns: RUNS },
  );
  for (const text of ["1.2.3.4", "0.0.0.0", "255.255.255.255", "256.0.0.0", "1.2.3.04", "01.2.3.4", "1.2.3.4294967295", "08.1.1.1", "0x1.1.1.1"])
    expect(HOST_UNCHANGED.url(text), JSON.stringify(text)).toBe(HOST_UNCHANGED.domainToASCII(text));
});
