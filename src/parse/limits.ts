// The documented input limits (docs/limits.md), enforced before a parser can blow up.
/** Documented input limits (docs/limits.md): beyond them an input is refused, never parsed on. */
export const LIMITS = {
  /** Bytes in one input file (or stdin). */
  fileBytes: 8 * 1024 * 1024,
  /** Alias expansions in one document (billion-laughs documents stop here). */
  aliases: 100,
  /** Nesting of mappings and sequences in one document. */
  depth: 200,
  /** Nodes (scalars, collections, list entries) in one document: the positioned parser's memory grows with them. */
  nodes: 500_000,
} as const;

export const LIMITS_TEXT = `an input file is at most ${LIMITS.fileBytes / 1024 / 1024} MiB, expands at most ${LIMITS.aliases} YAML aliases, nests at most ${LIMITS.depth} levels deep and holds at most ${LIMITS.nodes} nodes in one document`;

export const FILE_LIMIT = `the ${LIMITS.fileBytes / 1024 / 1024} MiB (${LIMITS.fileBytes}-byte) limit for an input file`;
