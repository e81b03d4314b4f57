// Every file of examples/ at build time, so `init` needs no file beside the
// command; undefined from sources. Only init reads it, so it stays out of main (src/seams.ts, PLACED).

declare const RIGGING_EXAMPLES: Record<string, string> | undefined;

export const EXAMPLES: Record<string, string> | undefined = typeof RIGGING_EXAMPLES === "undefined" ? undefined : RIGGING_EXAMPLES;
