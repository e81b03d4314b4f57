// node:net's isIP without loading node:net or compiling its IPv6 pattern for
// IPv4 text; test/k8s/ip.test.ts holds the answers equal.
import { isIP } from "node:net";
import { domainToASCII } from "node:url";

const DOTTED_DIGITS = /^\d+\.\d+\.\d+\.\d+$/;

/** Whether the WHATWG host parser writes `text` back unchanged: domainToASCII under Node, the global URL under Bun, whichever is already loaded. */
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
