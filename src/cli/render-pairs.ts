// A directory's installations judged together, as `check` judges one
// directory: a Runner against the Server's runner-clusters entry it names
// (token lifetime, issuer, audience, TLS names) when they come from two files.
import { formatPath } from "../core/diagnostic.ts";
import { objectRef, type K8sObject } from "../k8s/objects.ts";
import { normalise } from "../normalise/index.ts";
import { catalog } from "../systems/registry.ts";

/** One values file's render. */
export interface Member {
  file: string;
  kind: string;
  objects: readonly K8sObject[];
  /** The render notes (checklist, Secrets to create, the runner-clusters entry), empty under --quiet. */
  notes: readonly string[];
}

/** Why the members' objects, judged as one input, are refused: a line per error finding, naming its file and the others'. */
export function pairRefusals(members: readonly Member[]): string[] {
  // One kind renders no pair: its files were each judged whole already (the render's self-check).
  if (new Set(members.map((m) => m.kind)).size < 2) return [];
  const owner = new Map<string, Member>();
  for (const member of members) for (const object of member.objects) owner.set(key(object), member);
  const normal = normalise(members.flatMap((m) => m.objects));
  const errors = catalog.checkObjects(normal.objects, undefined, { rendered: true }).filter((f) => f.severity === "error");
  return errors.map((f) => {
    const member = owner.get(key(f.object as K8sObject));
    const others = members.filter((m) => m !== member && m.kind !== member?.kind).map((m) => `${m.file} (${m.kind})`);
    const where = member ? `${member.file}: ` : "";
    return `${where}${f.id} ${objectRef(f.object)} ${formatPath(f.path)}: ${f.message}; judged with ${others.join(", ")}; fix: ${f.fix}`;
  });
}

/** A line of `pairRefusals` without the members it names as judged with: the finding alone. */
const findingOf = (line: string) => line.replace(/; judged with .*?; fix: /, "; fix: ");

/**
 * The members of `candidates` that `owner`'s refusal `line` needs: halves that bring it about alone are searched on,
 * so one Server among many Runners is found in a few judgements; where none does, all of them, as the line names them.
 */
export function counterparts<M extends Member>(owner: M, line: string, candidates: readonly M[]): M[] {
  if (candidates.length <= 1) return [...candidates];
  const finding = findingOf(line);
  const half = candidates.length >> 1;
  const found = [candidates.slice(0, half), candidates.slice(half)]
    .filter((part) => pairRefusals([owner, ...part]).some((l) => findingOf(l) === finding))
    .flatMap((part) => counterparts(owner, line, part));
  return found.length > 0 ? found : [...candidates];
}

function key(object: K8sObject): string {
  return JSON.stringify([object.apiVersion, object.kind, object.metadata?.namespace ?? "", object.metadata?.name]);
}
