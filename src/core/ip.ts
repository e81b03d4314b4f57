// Which IP family a string is, as node:net's isIP answers, without its
// first-call cost: Node compiles its IPv6 pattern on first use, 20-70 ms
// on the bench machine (node -e with hrtime around the first isIP call),
// more than a whole render. Every IPv6 literal contains ':' and no IPv4
// literal does, so a string without ':' only asks isIPv4.
import { isIP, isIPv4 } from "node:net";

/** 4, 6 or 0 (not an IP literal): the same answer as isIP. */
export function ipFamily(text: string): 0 | 4 | 6 {
  if (text.includes(":")) return isIP(text) as 0 | 4 | 6;
  return isIPv4(text) ? 4 : 0;
}
