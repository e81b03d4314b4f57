// Where each part of a normalised object was written: rules read the object
// Kubernetes runs, findings point at the text a person edits.
import type { K8sObject } from "../k8s/objects.ts";

/** One subtree of a normalised object that came from elsewhere in the input. */
interface Moved {
  from: readonly PropertyKey[];
  to: readonly PropertyKey[];
}

export interface Written {
  object: K8sObject;
  path: PropertyKey[];
}

/** Normalised objects, each with the input object it stands for and the subtrees that moved. */
export class Provenance {
  readonly #input = new Map<K8sObject, K8sObject>();
  readonly #moved = new Map<K8sObject, Moved[]>();

  /** `normalised` stands for `input` (itself when nothing changed). */
  record(normalised: K8sObject, input: K8sObject): void {
    this.#input.set(normalised, input);
  }

  /** The subtree at `from` in `normalised` was written at `to` in its input object. */
  move(normalised: K8sObject, from: readonly PropertyKey[], to: readonly PropertyKey[]): void {
    const list = this.#moved.get(normalised);
    if (list) list.push({ from, to });
    else this.#moved.set(normalised, [{ from, to }]);
  }

  /** The input object a normalised one stands for. */
  input(normalised: K8sObject): K8sObject {
    return this.#input.get(normalised) ?? normalised;
  }

  /** Where a path of a normalised object was written: the longest moved prefix, else the same path. */
  written(normalised: K8sObject, path: readonly PropertyKey[]): Written {
    const object = this.input(normalised);
    let best: Moved | undefined;
    for (const moved of this.#moved.get(normalised) ?? []) {
      if (moved.from.length <= path.length && moved.from.every((key, i) => key === path[i]) && (!best || moved.from.length > best.from.length)) best = moved;
    }
    return { object, path: best ? [...best.to, ...path.slice(best.from.length)] : [...path] };
  }
}
