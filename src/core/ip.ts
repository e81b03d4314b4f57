// Which IP family a string is, as node:net's isIP answers, without loading
// node:net (and Node's stream modules with it) or compiling its IPv6 pattern
// for the IPv4 addresses most values hold: only a string with ':' asks node:net.
// A string without ':' (no IPv6 literal lacks one, every IPv4 literal does)
// is asked of the WHATWG URL host parser that every process has loaded
// (node:url): a string of four dot-separated runs of digits is an IPv4
// literal exactly when that parser writes it back unchanged (it reads `01`
// as octal, `1.2.3` as 1.2.0.3, and refuses parts over 255).
// test/core/ip.test.ts holds this to node:net's answer.
import { isIP } from "node:net";
import { domainToASCII } from "node:url";

const DOTTED_DIGITS = /^\d+\.\d+\.\d+\.\d+$/;

/**
 * Whether the WHATWG URL host parser writes `text` back unchanged, asked
 * two ways: node:url's domainToASCII, or a URL with `text` for its host.
 * Under Node the first, the cheaper, from a module every process has loaded;
 * under Bun the second, since Bun loads node:url only on first use
 * (BUN_LOADED_AT_START in scripts/build.mjs) and its global URL is there
 * already. test/core/ip.test.ts holds the two answers to each other.
 */
export const HOST_UNCHANGED = {
  domainToASCII: (text: string): boolean => domainToASCII(text) === text,
  url: (text: string): boolean => {
    try {
      return new URL(`http://${text}/`).hostname === text;
    } catch {
      return false;
    }
  },
};
const hostUnchanged = process.versions.bun === undefined ? HOST_UNCHANGED.domainToASCII : HOST_UNCHANGED.url;

/** 4, 6 or 0 (not an IP literal): the same answer as node:net's isIP. */
export function ipFamily(text: string): 0 | 4 | 6 {
  if (text.includes(":")) return isIP(text) as 0 | 4 | 6;
  return DOTTED_DIGITS.test(text) && hostUnchanged(text) ? 4 : 0;
}
