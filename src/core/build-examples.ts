// Every file of examples/ at build time, by path relative to the package
// root (scripts/build-info.mjs; both builds define RIGGING_EXAMPLES), so that
// `init` needs no file beside the command; undefined when the sources run.
// Apart from RIGGING_BUILD (build.ts), which every run reads: only init
// reads this, and the build keeps it with init, out of main.cjs and out of
// the Bun build of render alone (19 kB each).

declare const RIGGING_EXAMPLES: Record<string, string> | undefined;

export const EXAMPLES: Record<string, string> | undefined = typeof RIGGING_EXAMPLES === "undefined" ? undefined : RIGGING_EXAMPLES;
