// The CEL engine (@bufbuild/cel with its strings extension and RE2), loaded
// on first use: a check of a set without policies never pays for it.
import { createRequire } from "node:module";

export type Evaluator = (context: Record<string, unknown>) => unknown;

export interface Cel {
  plan(env: unknown, parsed: unknown): Evaluator;
  parse(expression: string): unknown;
  isCelError(value: unknown): value is Error;
  celMap(map: ReadonlyMap<string, unknown>): unknown;
  celList(list: readonly unknown[]): unknown;
  env: unknown;
  /** The environment with the engine's own `matches`, for the plain path. */
  plainEnv: unknown;
}

interface Matcher {
  test(text: string): boolean;
}

/** Loads the engine and makes its environments; each load keeps its own compiled patterns. */
export function loadEngine(): Cel {
  // Literal require() calls, so that the bundle and the standalone executable
  // carry the engine; the sources under test run as ES modules, without require.
  const [coreModule, extModule, re2Module] =
    typeof require === "function"
      ? [require("@bufbuild/cel"), require("@bufbuild/cel/ext"), require("@bufbuild/re2")]
      : ((load: NodeJS.Require) => [load("@bufbuild/cel"), load("@bufbuild/cel/ext"), load("@bufbuild/re2")])(createRequire(import.meta.url));
  const core = coreModule as Omit<Cel, "env" | "plainEnv"> & { celEnv(options: unknown): unknown };
  const { strings } = extModule as { strings: unknown };
  const { RE2JS } = re2Module as { RE2JS: { compile(pattern: string): Matcher } };
  const patterns = new PatternCache((pattern) => RE2JS.compile(pattern));
  return {
    plan: core.plan,
    parse: core.parse,
    isCelError: core.isCelError,
    celMap: core.celMap,
    celList: core.celList,
    env: core.celEnv({ funcs: strings, re2: { compile: (pattern: string) => patterns.compiled(pattern) } }),
    plainEnv: core.celEnv({ funcs: strings }),
  };
}

const MAX_PATTERNS = 256;
const MAX_PATTERN = 1024;

/** Compiled patterns by text: the engine's `matches` recompiles on every call. */
class PatternCache {
  private readonly patterns = new Map<string, Matcher>();
  constructor(private readonly compile: (pattern: string) => Matcher) {}
  compiled(pattern: string): Matcher {
    const known = this.patterns.get(pattern);
    if (known) return known;
    const matcher = this.compile(pattern);
    if (pattern.length <= MAX_PATTERN) {
      if (this.patterns.size >= MAX_PATTERNS) this.patterns.clear();
      this.patterns.set(JSON.parse(JSON.stringify(pattern)) as string, matcher); // a copy, not a slice of a file
    }
    return matcher;
  }
}
