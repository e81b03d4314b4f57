// CIDRs as address ranges, parsed as Go's net.ParseCIDR (net/ip.go, net/netip/netip.go)
// or, with `sloppy`, as k8s.io/utils/net ParseCIDRSloppy (Go 1.16's parser, which the
// API server validates NetworkPolicy ipBlocks with), so "everywhere" is found in any spelling.

export interface Cidr {
  family: 4 | 6;
  prefix: number;
  /** The address as written, host bits included. */
  address: bigint;
  /** The first and last addresses of the range (host bits masked off, as ParseCIDR's IPNet). */
  first: bigint;
  last: bigint;
}

export interface IpBlock {
  cidr: string;
  except?: readonly string[] | null;
}

export interface CidrOptions {
  /** Accept leading zeros in IPv4 octets and IPv6 groups, as ParseCIDRSloppy does. */
  sloppy?: boolean;
}

interface Range {
  first: bigint;
  last: bigint;
}

const BIG = 0xffffff;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const hexValue = (c: string | undefined): number => (c === undefined ? -1 : "0123456789abcdef".indexOf(c.toLowerCase()));

/** Go's dtoi: leading decimal digits, capped (net/parse.go). */
function dtoi(s: string, from: number): { n: number; end: number; ok: boolean } {
  let n = 0;
  let i = from;
  for (; i < s.length && isDigit(s[i]); i++) {
    n = n * 10 + (s.charCodeAt(i) - 48);
    if (n >= BIG) return { n: BIG, end: i, ok: false };
  }
  return { n, end: i, ok: i > from };
}

/** An IPv4 address as a number: netip's parseIPv4Fields (no leading zeros), or Go 1.16 parseIPv4 when sloppy. */
function parseIPv4(s: string, sloppy: boolean): bigint | undefined {
  let value = 0n;
  let pos = 0;
  for (let field = 0; field < 4; field++) {
    if (field > 0) {
      if (s[pos] !== ".") return undefined;
      pos++;
    }
    const { n, end, ok } = dtoi(s, pos);
    if (!ok || n > 255 || (!sloppy && end - pos > 1 && s[pos] === "0")) return undefined;
    value = (value << 8n) | BigInt(n);
    pos = end;
  }
  return pos === s.length ? value : undefined;
}

/** An IPv6 address as a number: netip parseIPv6 (at most 4 hex digits a group), or Go 1.16 parseIPv6 when sloppy. */
function parseIPv6(text: string, sloppy: boolean): bigint | undefined {
  const groups: number[] = []; // 16-bit groups before expanding `::`
  let ellipsis = -1;
  let s = 0;
  if (text.startsWith("::")) {
    ellipsis = 0;
    s = 2;
    if (s === text.length) return 0n;
  }
  while (groups.length < 8) {
    let off = s;
    let acc = 0;
    for (; hexValue(text[off]) >= 0; off++) {
      acc = acc * 16 + hexValue(text[off]);
      if (!sloppy && off - s > 3) return undefined;
      if (acc >= BIG) return undefined;
    }
    if (off === s || acc > 0xffff) return undefined;
    if (text[off] === ".") {
      // An embedded IPv4 address ends the text and fills the last two groups.
      if ((ellipsis < 0 && groups.length !== 6) || groups.length + 2 > 8) return undefined;
      const v4 = parseIPv4(text.slice(s), sloppy);
      if (v4 === undefined) return undefined;
      groups.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      s = text.length;
      break;
    }
    groups.push(acc);
    s = off;
    if (s === text.length) break;
    if (text[s] !== ":" || s + 1 === text.length) return undefined;
    s++;
    if (text[s] === ":") {
      if (ellipsis >= 0) return undefined;
      ellipsis = groups.length;
      s++;
      if (s === text.length) break;
    }
  }
  if (s !== text.length) return undefined;
  if (groups.length < 8) {
    if (ellipsis < 0) return undefined;
    groups.splice(ellipsis, 0, ...new Array<number>(8 - groups.length).fill(0));
  } else if (ellipsis >= 0) return undefined;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/** A CIDR as Go's net.ParseCIDR reads it (host bits allowed and masked), or undefined. */
export function parseCIDR(text: unknown, options: CidrOptions = {}): Cidr | undefined {
  if (typeof text !== "string") return undefined;
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const addr = text.slice(0, slash);
  const sloppy = options.sloppy === true;
  let family: 4 | 6;
  let address: bigint | undefined;
  if (sloppy) {
    // Go 1.16 tries IPv4, then IPv6.
    address = parseIPv4(addr, true);
    family = address === undefined ? 6 : 4;
    address ??= parseIPv6(addr, true);
  } else {
    // netip.ParseAddr decides by the first '.', ':' or '%'; a zone is refused by ParseCIDR.
    const first = [...addr].find((c) => c === "." || c === ":" || c === "%");
    family = first === "." ? 4 : 6;
    address = first === "." ? parseIPv4(addr, false) : first === ":" ? parseIPv6(addr, false) : undefined;
  }
  const bits = family === 4 ? 32 : 128;
  const { n, end, ok } = dtoi(text, slash + 1);
  if (address === undefined || !ok || end !== text.length || n > bits) return undefined;
  const hostBits = BigInt(bits - n);
  const first = (address >> hostBits) << hostBits;
  return { family, prefix: n, address, first, last: first | ((1n << hostBits) - 1n) };
}

/** Whether one CIDR is the whole of its family's space: a /0, however written (`0::/0`, `10.0.0.0/0`). */
export function isEverywhere(cidr: unknown, options: CidrOptions = {}): boolean {
  return parseCIDR(cidr, options)?.prefix === 0;
}

/** The ranges an ipBlock allows in `family`: its cidr less its `except` list; none when the cidr is not one. */
export function blockRanges(block: string | IpBlock, family: 4 | 6, options: CidrOptions = {}): Range[] {
  const { cidr, except } = typeof block === "string" ? { cidr: block, except: [] } : block;
  const range = parseCIDR(cidr, options);
  if (range === undefined || range.family !== family) return [];
  const holes = (Array.isArray(except) ? except : [])
    .map((e) => parseCIDR(e, options))
    .filter((e): e is Cidr => e !== undefined && e.family === family)
    .sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  const out: Range[] = [];
  let cursor = range.first;
  for (const hole of holes) {
    if (hole.last < cursor || hole.first > range.last) continue;
    if (hole.first > cursor) out.push({ first: cursor, last: hole.first - 1n });
    cursor = hole.last + 1n;
  }
  if (cursor <= range.last) out.push({ first: cursor, last: range.last });
  return out;
}

/** Whether the union of the blocks (CIDRs, or ipBlocks with `except`) is every address of `family`. */
export function coversEverything(blocks: readonly (string | IpBlock)[], family: 4 | 6, options: CidrOptions = {}): boolean {
  const ranges = blocks.flatMap((b) => blockRanges(b, family, options)).sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  const end = (1n << BigInt(family === 4 ? 32 : 128)) - 1n;
  let cursor = 0n;
  for (const r of ranges) {
    if (r.first > cursor) return false;
    if (r.last >= cursor) cursor = r.last + 1n;
    if (cursor > end) return true;
  }
  return false;
}
