// CEL compiled once per run: a fleet shares most of its CEL word for word, and
// literal-only differences share a parsed template (literals.ts).
import { blindOf, type Blind } from "./classes.ts";
import { CEL_COST_LIMIT, estimatedCost } from "./cost.ts";
import type { Cel, Evaluator } from "./engine.ts";
import { instantiate, splitLiterals, templateOf, type Parsed, type Split, type Template } from "./literals.ts";
import { Memo } from "./memo.ts";
import { guardOf, readsOf, type Guard, type Reads } from "./reads.ts";
import type { AdmissionRun } from "./run.ts";

/** A compiled expression, with what it reads when that is plain and its answers by what it read. */
export interface CompiledProgram {
  fn: Evaluator;
  reads?: Reads;
  memo?: Memo;
  guard?: Guard;
  blind?: Blind;
}

/** A compiled expression, or why it does not compile. */
export type Compiled = CompiledProgram | { error: string };

export interface CompileCaches {
  /** Programs by expression text, the least recently used first. */
  programs: Map<string, { text: string; compiled: Compiled }>;
  programText: number;
  /** Parsed templates by template text (null: the tree did not show its literals plainly). */
  templates: Map<string, Template | null>;
  templateText: number;
}

export const compileCaches = (): CompileCaches => ({ programs: new Map(), programText: 0, templates: new Map(), templateText: 0 });

const MAX_PROGRAM_TEXT = 64 * 1024;

export function compileExpression(run: AdmissionRun, expression: string): Compiled {
  const caches = run.compile;
  const known = run.plain ? undefined : caches.programs.get(expression);
  if (known) {
    // Most recently used last, under the key it was stored with (the copy, see below).
    caches.programs.delete(known.text);
    caches.programs.set(known.text, known);
    return known.compiled;
  }
  const engine = run.engine();
  run.stats.compilations++;
  // A copy: a cached program that kept a slice of its file's text would keep the whole file alive.
  const text = run.plain ? expression : (JSON.parse(JSON.stringify(expression)) as string);
  const split = run.plain ? undefined : splitLiterals(text);
  let compiled: Compiled;
  try {
    compiled = compiledText(run, engine, text, split);
  } catch (error) {
    compiled = { error: (error as Error).message.split("\n")[0] };
    // The parser's stack may overflow on deep nesting, which depends on where it is called from: not kept.
    if (error instanceof RangeError) return compiled;
  }
  if (!run.plain && expression.length <= MAX_PROGRAM_TEXT / 8) keepProgram(caches, text, compiled);
  return compiled;
}

/** Plans the text, from a copy of its template's tree where one is known. */
function compiledText(run: AdmissionRun, engine: Cel, text: string, split: Split | undefined): Compiled {
  const { plan, parse, env, plainEnv } = engine;
  const template = split && run.compile.templates.get(split.template);
  if (template) {
    const expr = instantiate(template, split);
    return costly(expr) ?? withReads(run, plan(env, expr), expr);
  }
  run.stats.parses++;
  const parsed = parse(text) as Parsed;
  const compiled = costly(parsed.expr) ?? withReads(run, plan(run.plain ? plainEnv : env, parsed), parsed.expr);
  if (split && template === undefined) keepTemplate(run.compile, split.template, templateOf(parsed, split) ?? null);
  return compiled;
}

/** Why the API server would refuse an expression for its cost, before it is planned or run (cost.ts). */
function costly(expr: unknown): Compiled | undefined {
  const cost = estimatedCost(expr as Parameters<typeof estimatedCost>[0]);
  if (cost <= CEL_COST_LIMIT) return undefined;
  return { error: `its estimated cost is over the API server's limit of ${CEL_COST_LIMIT} per expression (nested comprehensions multiply)` };
}

function withReads(run: AdmissionRun, fn: Evaluator, expr: unknown): Compiled {
  if (run.plain) return { fn };
  const reads = readsOf(expr);
  const guard = guardOf(expr);
  const blind = blindOf(expr);
  return { fn, ...(reads ? { reads, memo: new Memo() } : {}), ...(guard ? { guard } : {}), ...(blind ? { blind } : {}) };
}

function keepProgram(caches: CompileCaches, text: string, compiled: Compiled): void {
  caches.programs.set(text, { text, compiled });
  caches.programText += text.length;
  for (const [oldest] of caches.programs) {
    if (caches.programText <= MAX_PROGRAM_TEXT) break;
    caches.programs.delete(oldest);
    caches.programText -= oldest.length;
  }
}

function keepTemplate(caches: CompileCaches, text: string, template: Template | null): void {
  if (text.length > MAX_PROGRAM_TEXT / 8) return;
  if (caches.templateText + text.length > MAX_PROGRAM_TEXT) {
    caches.templates.clear();
    caches.templateText = 0;
  }
  caches.templates.set(text, template);
  caches.templateText += text.length;
}
