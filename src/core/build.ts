// What the build step put into a bundle (RIGGING_BUILD); the sources, run as
// they are, have none and read the package's files instead.

export interface BuildInfo {
  /** A standalone executable built by `bun build --compile`. */
  binary: boolean;
}

declare const RIGGING_BUILD: BuildInfo | undefined;

/** This bundle's build, or undefined when the sources run. */
export const BUILD: BuildInfo | undefined = typeof RIGGING_BUILD === "undefined" ? undefined : RIGGING_BUILD;
