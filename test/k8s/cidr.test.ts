// CIDRs as Go's net.ParseCIDR reads them, as address ranges, so "everywhere"
// is found however it is written.
import { isIP } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockRanges, coversEverything, isEverywhere, parseCIDR } from "../../src/k8s/cidr.ts";
import { runs } from "../support/runs.ts";

describe("parseCIDR", () => {
  it("reads IPv4 and IPv6 CIDRs, masking host bits as ParseCIDR's IPNet", () => {
    expect(parseCIDR("10.1.2.3/8")).toEqual({ family: 4, prefix: 8, address: 0x0a010203n, first: 0x0a000000n, last: 0x0affffffn });
    expect(parseCIDR("0::/0")).toMatchObject({ family: 6, prefix: 0, first: 0n, last: (1n << 128n) - 1n });
    expect(parseCIDR("::ffff:0:0/96")).toMatchObject({ family: 6, prefix: 96, first: 0xffff00000000n, last: 0xffffffffffffn });
    expect(parseCIDR("::ffff:1.2.3.4/128")).toMatchObject({ family: 6, first: 0xffff01020304n });
    expect(parseCIDR("2001:DB8::/32")).toMatchObject({ family: 6, first: 0x20010db8n << 96n });
    expect(parseCIDR("1:2:3:4:5:6:7:8/64")).toMatchObject({ first: 0x0001000200030004n << 64n });
    expect(parseCIDR("10.0.0.0/08")).toMatchObject({ prefix: 8 });
    expect(parseCIDR("1.2.3.4/32")).toMatchObject({ first: 0x01020304n, last: 0x01020304n });
  });

  it.each([
    "10.0.0.0",
    "10.0.0.0/",
    "10.0.0.0/33",
    "::/129",
    "10.0.0.0/-1",
    "10.0.0.0/+8",
    "10.0.0.0/8 ",
    " 10.0.0.0/8",
    "010.0.0.0/8",
    "10.0.0/8",
    "10.0.0.0.0/8",
    "256.0.0.0/8",
    "fe80::1%eth0/64",
    "1:2:3:4:5:6:7:8:9/64",
    "1::2::3/64",
    "1:2:3:4:5:6:7::8/64",
    "00001::/16",
    "::1.2.3/96",
    "1.2.3.4::/64",
    ":/0",
    ":::/0",
    "1:/0",
    "/0",
    "",
  ])("refuses %j", (text) => {
    expect(parseCIDR(text)).toBeUndefined();
  });

  it("accepts leading zeros only when sloppy, as the API server's ParseCIDRSloppy", () => {
    expect(parseCIDR("010.000.0.1/8", { sloppy: true })).toMatchObject({ family: 4, first: 0x0a000000n });
    expect(parseCIDR("00001::/16", { sloppy: true })).toMatchObject({ family: 6, first: 1n << 112n });
    expect(parseCIDR("::ffff:001.2.3.4/128", { sloppy: true })).toMatchObject({ first: 0xffff01020304n });
    expect(parseCIDR("::ffff:001.2.3.4/128")).toBeUndefined();
  });

  it("reads an address exactly when node:net's isIP does (zones aside)", () => {
    const chars = fc.constantFrom(..."0123456789abcdefABCDEF.:".split(""));
    fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 40 }), (addr) => {
        expect(parseCIDR(`${addr}/0`) !== undefined, JSON.stringify(addr)).toBe(isIP(addr) !== 0);
      }),
      { numRuns: runs(5000) },
    );
  });
});

describe("everywhere", () => {
  it("finds a /0 in any spelling", () => {
    for (const cidr of ["0.0.0.0/0", "10.0.0.0/0", "::/0", "0::/0", "0:0:0:0:0:0:0:0/0", "2001:db8::/0", "10.0.0.0/00"])
      expect(isEverywhere(cidr), cidr).toBe(true);
    for (const cidr of ["0.0.0.0/1", "::/1", "0.0.0.0", "junk", 42]) expect(isEverywhere(cidr), String(cidr)).toBe(false);
  });

  it("finds everything in a union of ranges", () => {
    expect(coversEverything(["0.0.0.0/1", "128.0.0.0/1"], 4)).toBe(true);
    expect(coversEverything(["128.0.0.0/1", "0.0.0.0/2", "64.0.0.0/2"], 4)).toBe(true);
    expect(coversEverything(["0.0.0.0/1", "128.0.0.0/2"], 4)).toBe(false);
    expect(coversEverything(["0.0.0.0/1", "128.0.0.0/1"], 6)).toBe(false);
    expect(coversEverything(["::/1", "8000::/1"], 6)).toBe(true);
    expect(coversEverything(["0.0.0.0/0"], 4)).toBe(true);
    expect(coversEverything([], 4)).toBe(false);
    expect(coversEverything(["0.0.0.0/1", "0.0.0.0/1", "127.255.255.255/1", "128.0.0.0/1"], 4)).toBe(true);
  });

  it("subtracts ipBlock except lists", () => {
    expect(coversEverything([{ cidr: "0.0.0.0/0", except: ["10.0.0.0/8"] }], 4)).toBe(false);
    expect(coversEverything([{ cidr: "0.0.0.0/0", except: ["10.0.0.0/8"] }, "10.0.0.0/8"], 4)).toBe(true);
    expect(coversEverything([{ cidr: "0.0.0.0/0", except: null }], 4)).toBe(true);
    expect(blockRanges({ cidr: "10.0.0.0/8", except: ["10.1.0.0/16", "10.0.0.0/16", "10.255.0.0/16"] }, 4)).toEqual([
      { first: 0x0a020000n, last: 0x0afeffffn },
    ]);
    expect(blockRanges({ cidr: "10.0.0.0/8", except: ["10.0.0.0/16", "10.0.0.0/24"] }, 4)).toEqual([{ first: 0x0a010000n, last: 0x0affffffn }]);
  });

  it("is linear after sorting: many blocks", () => {
    const blocks = Array.from({ length: 65_536 }, (_, i) => `${i >> 8}.${i & 255}.0.0/16`);
    const started = Date.now();
    expect(coversEverything(blocks.reverse(), 4)).toBe(true);
    expect(coversEverything(blocks.slice(1), 4)).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(parseCIDR(`${"1".repeat(500_000)}/8`)).toBeUndefined();
    expect(parseCIDR(`::/${"0".repeat(500_000)}`)).toMatchObject({ prefix: 0 });
  });
});
