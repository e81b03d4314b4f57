// The lazy-load seams, in one place: what the build keeps out of main.cjs and
// what a start loads (docs/performance.md). scripts/build/ reads this file and
// test/seams.test.ts proves the sources agree with it.

/** The command's entry for Node, and the render-only entry that render.ts requires under Bun. */
export const ENTRIES = { node: "src/cli/main.ts", bun: "src/cli/render-main.ts" } as const;

/** The system registry: its warm-ups name the values files whose runs write the code caches. */
export const REGISTRY = "src/systems/registry.ts";

/** Sources in no bundle, whose imports place no file. */
export const UNBUNDLED = ["src/docs/"] as const;

/** The packages kept out of main.cjs, by chunk; specifiers sharing code share a chunk. */
export const PACKAGE_CHUNKS = {
  yaml: ["yaml"],
  zod: ["zod"],
  pg: ["pg"],
  cel: ["@bufbuild/cel", "@bufbuild/cel/ext", "@bufbuild/re2"],
  nats: ["@nats-io/transport-node", "@nats-io/jetstream"],
} as const;

/** Each folder here is a system, or the Compass systems' shared contract, its files a chunk (KIND_PREFIX + folder) but for its heads. */
export const SYSTEMS_FOLDER = "src/systems";
export const KIND_PREFIX = "kind-";
/** A folder's files read at start, kept in main.cjs; a render of another kind never runs the rest. The contract's two programs' interfaces are heads: both systems read them. */
export const KIND_HEADS = ["kind.ts", "system.ts", "interface.ts", "ports.ts", "server-interface.ts", "runner-interface.ts"] as const;

/** Sources a render of one values file never runs, each chunk built like a kind's; a file only one chunk imports joins it. */
export const SOURCE_CHUNKS = {
  fleet: ["src/cli/fleet.ts", "src/cli/render-stream.ts", "src/core/threads.ts"],
  check: ["src/cli/check.ts", "src/cli/fn.ts"],
  commands: [
    "src/cli/explain.ts",
    "src/cli/schema.ts",
    "src/cli/init.ts",
    "src/cli/preflight.ts",
    "src/cli/pin.ts",
    "src/cli/diff.ts",
    "src/cli/completion.ts",
  ],
  admission: ["src/admission/judge.ts"],
} as const;

/** The chunks the Bun build (the render command alone) leaves out. */
export const NOT_IN_BUN = ["check", "commands"] as const;

/** The name main.cjs has among the chunks. */
export const MAIN = "main";

/** Files that exist for a seam, and where the build must put each: a chunk, or MAIN for none. */
export const PLACED: Record<string, string> = {
  // render asks whether an input is a directory without loading the fleet's chunk.
  "src/cli/directory.ts": MAIN,
  // Listing CR-06's rules never loads the judge.
  "src/admission/opinions.ts": MAIN,
  // Only init reads the examples, and only the chunks are built with them.
  "src/core/build-examples.ts": "commands",
};

/** Node modules every process has loaded already; any other is loaded on first use. */
export const NODE_AT_START = ["fs", "path", "url", "util", "events", "buffer", "vm"] as const;
/** Under Bun these are costly to load and a render of files needs neither, so they load on first use. */
export const BUN_LATE = ["util", "url"] as const;
