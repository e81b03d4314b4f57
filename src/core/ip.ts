// Which IP family a string is, as node:net's isIP answers, without what that
// costs a process on first use:
// - node:net itself: loading it loads Node's stream modules (about 30 of
//   them), and its first isIPv4 call costs as much again: 17 M instructions
//   in all (callgrind, `node -e 0` is 85 M), 9% of a render of
//   examples/compass-runner.yaml, whose values hold IPv4 addresses.
//   A string without ':' (no IPv6 literal lacks one, every IPv4 literal
//   does) is asked of the WHATWG URL host parser that every process has
//   loaded (node:url): a string of four dot-separated runs of digits is an
//   IPv4 literal exactly when that parser writes it back unchanged (it
//   reads `01` as octal, `1.2.3` as 1.2.0.3, and refuses parts over 255).
//   test/core/ip.test.ts holds this to node:net's answer.
// - Node's IPv6 pattern, compiled on the first isIP call: 20-70 ms on the
//   bench machine (node -e with hrtime around the first isIP call), more
//   than a whole render; only a string with ':' asks it.
// Measured: render of examples/compass-runner.yaml 185 -> 170 M instructions
// (callgrind, mean of 3, without NODE_EXTRA_CA_CERTS); its CPU time 226 ->
// 209 ms, 0.93x (medians of 20 alternated runs of both builds, loaded machine).
import { isIP } from "node:net";
import { domainToASCII } from "node:url";

const DOTTED_DIGITS = /^\d+\.\d+\.\d+\.\d+$/;

/**
 * Whether the WHATWG URL host parser writes `text` back unchanged, asked
 * two ways: node:url's domainToASCII, or a URL with `text` for its host.
 * Under Node the first: node:url is loaded in every process, and 20 calls
 * took 0.12-0.20 ms against 0.29-0.48 ms for URLs (hrtime, fresh
 * processes). Under Bun the second: Bun loads node:url on first use, which
 * took 5.0-5.2 ms (Bun.nanoseconds around the require, load average 5),
 * where its global URL is there already (0.05 ms for the first call); the
 * Bun build loads node:url on first use (BUN_LOADED_AT_START in
 * scripts/build.mjs, with the gain). test/core/ip.test.ts holds the two
 * answers to each other.
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
