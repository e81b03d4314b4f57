// The runner's settings as its Node process sees them: a variable of the
// kubelet's env list, a file path as the kernel opens it.
import type { Container, EnvVar } from "kubernetes-types/core/v1";
import { list } from "../../k8s/access.ts";
import { cleanPath } from "../../k8s/clean-path.ts";
import { flagOrEnv, type FlagOrEnv } from "../../k8s/flag-or-env.ts";
import { references } from "../../normalise/expand.ts";
import { ROOTPILOT_READING } from "./interface.ts";

/** A variable as the runner reads it: `value` when the input shows it, `hidden` when it comes from elsewhere. */
export interface Setting {
  /** Where it is set (undefined when unset); a finding points here. */
  at?: FlagOrEnv;
  value?: string;
  /** From a Secret, a fieldRef, a ConfigMap outside the input, or `$(VAR)` of one: not judged. */
  hidden: boolean;
}

/** The variable `name` of the runner's container, after the kubelet's envFrom, valueFrom and $(VAR). */
export function setting(container: Container, name: string): Setting {
  const at = flagOrEnv(container, { env: name }, ROOTPILOT_READING);
  if (at === undefined) return { hidden: false };
  if (at.from === "envFrom" || at.value === undefined) return { at, hidden: true };
  return { at, value: at.value, hidden: refersToHidden(container, at.value) };
}

/** A `$(VAR)` the stage left in place names a variable whose value the input does not show, unless VAR is undefined (then the kubelet leaves it as written). */
function refersToHidden(container: Container, value: string): boolean {
  if (!value.includes("$(")) return false;
  // Each name once, the last entry winning, so a value with many references costs one pass over the list.
  const fromElsewhere = new Map<string, boolean>();
  for (const env of list<EnvVar>(container.env)) if (typeof env?.name === "string") fromElsewhere.set(env.name, env.valueFrom !== undefined);
  const envFrom = list(container.envFrom).length > 0;
  return references(value).some((name) => fromElsewhere.get(name) ?? envFrom);
}

/** A file the runner opens: the cleaned absolute path or why no file can be there; undefined when not judged. */
export type FilePath = { path: string } | { problem: string } | undefined;

/**
 * `value` as Node's fs opens it: the kernel reads `//` and `/./` as `/` and `..` as the parent, a
 * relative path from the working directory, and a trailing `/` or `/.` as a directory, never a file.
 */
export function runnerFile(value: string, container: Container): FilePath {
  if (/(^|\/)\.{0,2}$/.test(value))
    return { problem: `${JSON.stringify(value)} names a directory (it ends in "/", "/." or "/.."), which the runner cannot open as a file` };
  if (value.startsWith("/")) return { path: cleanPath(value) };
  const dir = container.workingDir;
  if (typeof dir === "string" && dir.startsWith("/")) return { path: cleanPath(`${dir}/${value}`) };
  return undefined; // relative to the image's WORKDIR, which the manifest does not show
}
