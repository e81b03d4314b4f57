// One policy's CEL for one request and identity, answered from shared
// answers, a guard or a memo where the plan allows.
import type { Asking, Decision } from "./decide.ts";
import type { Evaluator } from "./engine.ts";
import { Memo, memoKey } from "./memo.ts";
import type { Planned, Slot } from "./plan.ts";
import type { Guard } from "./reads.ts";
import type { AdmissionRun } from "./run.ts";

/** CEL results: a value, or an error (`thrown` where the engine threw, which may depend on the stack), or an unsupported function. */
export type Outcome = { value: unknown } | { error: string; thrown?: true } | { unsupported: string };

type Verdict = { deniedBy: NonNullable<Decision["deniedBy"]> } | { unknown: string } | undefined;

/** One policy's answer: undefined when it admits the request. */
export function judgePolicy(run: AdmissionRun, entry: Planned, asking: Asking): Verdict {
  const evaluation = new Evaluation(run, asking);
  const failed = (path: PropertyKey[], error: string) =>
    entry.failClosed ? { deniedBy: { object: entry.policy, path, message: `evaluation failed (${error}) and failurePolicy is Fail` } } : undefined;
  for (const condition of entry.matchConditions) {
    const outcome = evaluation.outcome(condition);
    if ("unsupported" in outcome) return { unknown: outcome.unsupported };
    if ("error" in outcome) return failed(condition.path, outcome.error);
    if (outcome.value === false) return undefined;
  }
  // Variables are computed in order; one that fails stays unset, and fails what reads it.
  for (const variable of entry.variables) {
    const outcome = evaluation.outcome(variable);
    if ("unsupported" in outcome) return { unknown: outcome.unsupported };
    if ("value" in outcome) evaluation.setVariable(variable.name, outcome.value);
  }
  for (const validation of entry.validations) {
    const outcome = evaluation.outcome(validation);
    if ("unsupported" in outcome) return { unknown: outcome.unsupported };
    if ("error" in outcome) {
      const denied = failed(validation.path, outcome.error);
      if (denied) return denied;
      continue;
    }
    if (outcome.value !== true) return { deniedBy: { object: entry.policy, path: validation.path, message: validation.message } };
  }
  return undefined;
}

/** The variables and context of one policy's run. */
class Evaluation {
  // As a Map the engine reads it live; as a plain object it copies it on every access.
  private readonly variables = new Map<string, unknown>();
  private readonly plainVariables: Record<string, unknown> = {};
  private context?: Record<string, unknown>;
  constructor(
    private readonly run: AdmissionRun,
    private readonly asking: Asking,
  ) {}

  setVariable(name: string, value: unknown): void {
    if (this.run.plain) this.plainVariables[name] = value;
    else this.variables.set(name, value);
  }

  /** The slot's answer: kept per request when it is the same whoever asks, from its program's memo when it read the same before. */
  outcome(slot: Slot): Outcome {
    if (this.run.plain) return this.evaluated(slot);
    if (slot.guard) {
      const decided = guarded(slot.guard, this.variables);
      if (decided) return decided;
    }
    const { ready } = this.asking;
    let outcome = slot.shared ? ready.shared.get(slot) : undefined;
    if (outcome) return outcome;
    outcome = this.remembered(slot);
    if (slot.shared) ready.shared.set(slot, outcome);
    return outcome;
  }

  private remembered(slot: Slot): Outcome {
    const { ready } = this.asking;
    const key = slot.reads ? memoKey(this.run, slot.reads, this.asking, this.variables) : undefined;
    let memo: Memo | undefined;
    if (key !== undefined) {
      memo = key.local ? ready.local.get(slot.memo!) : slot.memo;
      if (key.local && !memo) ready.local.set(slot.memo!, (memo = new Memo()));
      const known = memo!.get(key.parts);
      if (known) return known;
    }
    const outcome = this.evaluated(slot);
    if (memo && !("thrown" in outcome)) {
      memo.set(key!.parts, outcome);
      if (!key!.local && "value" in outcome && typeof outcome.value === "object" && outcome.value !== null) this.run.sharedValues.add(outcome.value);
    }
    return outcome;
  }

  private evaluated(slot: Slot): Outcome {
    const { run, asking } = this;
    this.context ??= { request: asking.request(), ...asking.ready.base, variables: run.plain ? this.plainVariables : run.engine().celMap(this.variables) };
    return evaluate(this.run, slot.fn, this.context);
  }
}

function evaluate(run: AdmissionRun, fn: Evaluator, context: Record<string, unknown>): Outcome {
  const { isCelError } = run.engine();
  let value: unknown;
  try {
    value = fn(context);
  } catch (error) {
    run.stats.thrown++;
    return { error: (error as Error).message, thrown: true };
  }
  if (!isCelError(value)) return { value };
  const unbound = /unbound function: (\S+)/.exec(value.message);
  return unbound ? { unsupported: unbound[1] } : { error: value.message };
}

const TRUE: Outcome = { value: true };
const FALSE: Outcome = { value: false };

/** A chain's answer from its leading variable terms, as the engine would give it. */
function guarded(guard: Guard, variables: ReadonlyMap<string, unknown>): Outcome | undefined {
  for (const { name, negated } of guard.terms) {
    if (!variables.has(name)) continue;
    const value = variables.get(name);
    if (typeof value !== "boolean") return undefined;
    const term = negated ? !value : value;
    if (guard.op === "&&" && !term) return FALSE;
    if (guard.op === "||" && term) return TRUE;
  }
  return undefined;
}
