// The GitOps controllers an input names (Flux Kustomizations and HelmReleases,
// Argo CD Applications), found in every directory before any is judged: the
// object that drives a controller seldom sits beside what it applies.
import { type Applier, applierOf } from "../k8s/gitops.ts";
import { readText } from "../parse/source.ts";
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

/** `options` with the input's appliers, and stdin read once here so that both passes see it. */
export function withAppliers<O extends { stdin?: string; appliers?: Applier[] }>(input: InputGroups, options: O): O {
  const piped = input.groups.some((g) => g.some((f) => f.file === "-"));
  const stdin = piped && options.stdin === undefined ? readable("-") : options.stdin;
  const appliers = appliersIn(input, stdin);
  return { ...options, ...(stdin !== undefined ? { stdin } : {}), ...(appliers.length > 0 ? { appliers } : {}) };
}
