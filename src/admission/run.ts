// One check run's admission state: path options and caches carried across installations.
import { loadEngine, type Cel } from "./engine.ts";
import { compileCaches, type CompileCaches } from "./compile.ts";

export interface AdmissionOptions {
  /** The reference path: every expression compiled anew, objects handed to CEL as plain data, each request matched anew for every identity. */
  plain?: boolean;
  /** Identities decided as classes (classes.ts); off, each identity is decided on its own. */
  byClass?: boolean;
}

/** Counts for tests and the bench: what the caches saved. */
export interface AdmissionStats {
  /** Expressions compiled, and how many of them were parsed (the others were copied from a template). */
  compilations: number;
  parses: number;
  /** Requests asked of a set, and how many were answered from the decision of their class. */
  asked: number;
  fromClass: number;
  /** Evaluations that threw (a decision that met one is not shared with a class). */
  thrown: number;
}

export interface AdmissionRun {
  readonly plain: boolean;
  readonly byClass: boolean;
  /** The CEL engine, loaded on first use. */
  engine(): Cel;
  readonly compile: CompileCaches;
  /** Objects as CEL sees them, converted once (convert.ts). */
  readonly converted: WeakMap<object, unknown>;
  /** Values answered from a program's own memo: the same object for every installation that asks, so they may key shared answers. */
  readonly sharedValues: WeakSet<object>;
  /** Each list of groups as a memo key part. */
  readonly groupKeys: WeakMap<readonly string[], string>;
  readonly stats: AdmissionStats;
}

export function newAdmissionRun(options: AdmissionOptions = {}): AdmissionRun {
  let engine: Cel | undefined;
  return {
    plain: options.plain ?? false,
    byClass: options.byClass ?? true,
    engine: () => (engine ??= loadEngine()),
    compile: compileCaches(),
    converted: new WeakMap(),
    sharedValues: new WeakSet(),
    groupKeys: new WeakMap(),
    stats: { compilations: 0, parses: 0, asked: 0, fromClass: 0, thrown: 0 },
  };
}
