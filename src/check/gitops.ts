// The GitOps controllers an input names (Flux Kustomizations and HelmReleases,
// Argo CD Applications), found in every directory before any is judged: the
// object that drives a controller seldom sits beside what it applies.
import { UsageError } from "../core/errors.ts";
import { type Applier, applierOf } from "../k8s/gitops.ts";
import { readText } from "../parse/read.ts";
import type { InputGroups } from "./groups.ts";
import { parseManifests } from "./kube-yaml.ts";
import { loadObjects } from "./load.ts";

/** Only a file that names one of their API groups is parsed here; the judging pass reports what it holds. */
const NAMES_ONE = /(?:kustomize|helm)\.toolkit\.fluxcd\.io\/|argoproj\.io\//;

/** The appliers of the input's files and builds, once each; `stdin`: what `-` holds. */
export function appliersIn(input: InputGroups, stdin: string | undefined): Applier[] {
  const found = new Map<string, Applier>();
  for (const group of input.groups) {
    for (const { file, patch, built, refused } of group) {
      if (patch || refused) continue;
      const text = built ? built.text : file === "-" ? stdin : readable(file);
      if (text === undefined || !NAMES_ONE.test(text)) continue;
      let objects;
      try {
        objects = loadObjects(parseManifests(text, file)).objects;
      } catch {
        continue;
      }
      for (const object of objects) {
        const applier = applierOf(object, file);
        if (applier) found.set(`${applier.who}\0${applier.user}`, applier);
      }
    }
  }
  return [...found.values()];
}

function readable(file: string): string | undefined {
  try {
    return readText(file);
  } catch {
    return undefined;
  }
}

/** `options` with the input's appliers, and stdin read once here so that both passes see it (or why it cannot be read). */
export function withAppliers<O extends { stdin?: string; stdinError?: string; appliers?: Applier[] }>(input: InputGroups, options: O): O {
  let { stdin, stdinError } = options;
  if (stdin === undefined && input.groups.some((g) => g.some((f) => f.file === "-"))) {
    try {
      stdin = readText("-");
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      stdinError = error.message;
    }
  }
  const appliers = appliersIn(input, stdin);
  return { ...options, ...(stdin !== undefined ? { stdin } : {}), ...(stdinError ? { stdinError } : {}), ...(appliers.length > 0 ? { appliers } : {}) };
}

/** What `-` holds: as read before the judging pass, or read now; its read's error again where that failed. */
export function stdinOf(options: { stdin?: string; stdinError?: string }): string {
  if (options.stdinError !== undefined) throw new UsageError(options.stdinError);
  return options.stdin ?? readText("-");
}
