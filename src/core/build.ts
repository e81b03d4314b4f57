// What the build step put into a bundle (scripts/build.mjs and
// scripts/build-binary.mjs define RIGGING_BUILD). The TypeScript sources,
// run as they are (tests, `bun run render.ts` without a fresh build), have
// none of it and read the package's files instead.

export interface BuildInfo {
  /** A standalone executable built by `bun build --compile`. */
  binary: boolean;
}

declare const RIGGING_BUILD: BuildInfo | undefined;

/** This bundle's build, or undefined when the sources run. */
export const BUILD: BuildInfo | undefined = typeof RIGGING_BUILD === "undefined" ? undefined : RIGGING_BUILD;
