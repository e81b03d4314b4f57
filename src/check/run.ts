// `check` without the command line: inputs to objects to systems to the rule
// catalog, each finding placed in its file.
import { dirname, isAbsolute, relative } from "node:path";
import { formatPath } from "../core/diagnostic.ts";
import { UsageError } from "../core/errors.ts";
import type { CheckFinding, CheckOptions, CheckReport, ObjectIdentity, Unrecognised } from "./report.ts";
import { objectRef, type K8sObject } from "../k8s/objects.ts";
import type { SourceDocument } from "../parse/source.ts";
import { readText } from "../parse/read.ts";
import { treeOf } from "../parse/tree.ts";
import { RunScope, type Finding, type SystemName, type RuleHit } from "../rules/engine.ts";
import { classify } from "./classify.ts";
import { type GroupFile, type InputGroups, inputGroups, STDIN_NAME } from "./groups.ts";
import { parseManifests } from "./kube-yaml.ts";
import { loadObjects, type Origin } from "./load.ts";
import { OriginalFiles, helmSources, writtenIn } from "./origin.ts";
import { patchPlace } from "./patch-origin.ts";
import { isWorkloadKind, UNRECOGNISED_RULE } from "./pseudo-rules.ts";
import { inputProfiles, noteFindings } from "./notes.ts";
import { normalise } from "../normalise/index.ts";
import { notKubernetesFile, schemaChecked } from "./schema-findings.ts";
import { crashesFolded, saidOnce } from "./overlap.ts";
import { skippedFor } from "./skipped.ts";
import { inputFinding, readWalked } from "./walked.ts";
import { WAIVER_RULE, waiversOf } from "./waivers.ts";
import { defineJob } from "../core/jobs.ts";
import { feedThreads, threadsForRun } from "../core/threads.ts";
import { Assembly, inOrder, type Judged, type SkippedAt } from "./assemble.ts";
import { schemaOnlyChecked } from "./schema-only.ts";
import { stdinOf, withAppliers } from "./gitops.ts";
import { catalog } from "../systems/registry.ts";

export type { CheckFinding, CheckOptions, CheckReport, ObjectIdentity, Unrecognised } from "./report.ts";
export type { Skipped } from "./skipped.ts";
export { skippedFor };

export { STDIN_NAME };

/** `check` of inputs that need no build (stdin, files): synchronous. */
export function checkFiles(args: readonly string[], options: CheckOptions = {}): CheckReport {
  const input = inputGroups(args, options);
  if (input instanceof Promise) throw new Error("checkFiles: a kustomization is built asynchronously; use checkFilesOnThreads");
  return judgedHere(input, withAppliers(input, options));
}

/** Directories from which worker threads pay: measured in docs/performance.md, "`check` on worker threads from 500 directories". */
export const CHECK_THRESHOLD = 500;

/** `checkFiles`, with the directories spread over worker threads where the run is long enough and there are cores. */
export function checkFilesOnThreads(args: readonly string[], options: CheckOptions = {}): CheckReport | Promise<CheckReport> {
  const input = inputGroups(args, options);
  return input instanceof Promise ? input.then((i) => judged(i, withAppliers(i, options))) : judged(input, withAppliers(input, options));
}

function judged(input: InputGroups, options: CheckOptions): CheckReport | Promise<CheckReport> {
  const { groups } = input;
  const long = groups.length >= CHECK_THRESHOLD;
  const piped = options.stdin !== undefined || groups.some((g) => g.some((f) => f.file === "-"));
  // Decided here first: a shorter run never loads the threads' file (the fleet's) unless RIGGING_THREADS asks for threads.
  if (piped || (!long && !process.env.RIGGING_THREADS)) return judgedHere(input, options);
  const threads = threadsForRun(long);
  return threads <= 1 ? judgedHere(input, options) : judgedOnThreads(input, options, threads);
}

/** Every directory judged on this thread, one after the other. */
function judgedHere(input: InputGroups, options: CheckOptions): CheckReport {
  const assembly = new Assembly(input);
  for (const group of input.groups) assembly.add(judgeDirectory(group, options));
  return assembly.finished(!options.schemaOnly);
}

/**
 * The directories handed out one at a time to worker threads while this thread only folds their results in, so
 * its heap stays small; a directory a worker did not finish (the worker failed) is judged here.
 */
function judgedOnThreads(input: InputGroups, options: CheckOptions, threads: number): Promise<CheckReport> {
  const assembly = new Assembly(input);
  const add = inOrder((one: Judged) => assembly.add(one));
  const groups: (GroupFile[] | undefined)[] = input.groups;
  let given = 0;
  // Each directory's list is let go once handed out.
  const next = () => {
    const group = groups[given];
    groups[given++] = undefined;
    return group;
  };
  return feedThreads(checkJob, next, options, threads, add).then(({ lost }) => {
    for (const { index, item } of lost) add(index, judgeDirectory(item, options));
    const report = assembly.finished(!options.schemaOnly);
    if (lost.length > 0) report.stoppedThread = `a worker thread ${lost[0].why}`;
    return report;
  });
}

/** One scope per run on each thread: a thread is handed the same options for each of its directories. */
const scopes = new WeakMap<CheckOptions, RunScope>();
function runScope(options: CheckOptions): RunScope {
  let scope = scopes.get(options);
  if (!scope) scopes.set(options, (scope = new RunScope(options.kubeVersion, options.appliers)));
  return scope;
}

/**
 * A worker's heap (docs/performance.md, "`check` on worker threads from 500 directories"): a young generation larger
 * than a fleet's, since an installation's CEL data outlives more scavenges, and an old one bounded where V8 grows it least.
 */
const CHECK_HEAP = { youngGenerationMb: 16, oldGenerationMb: 256 };

const checkJob = defineJob("check", (group: GroupFile[], options: CheckOptions) => judgeDirectory(group, options), CHECK_HEAP);

function judgeDirectory(files: readonly GroupFile[], options: CheckOptions): Judged {
  const objects: K8sObject[] = [];
  const origins = new Map<K8sObject, Origin>();
  const helm = new Map<SourceDocument, string | undefined>();
  const problems: string[] = [];
  const skipped: SkippedAt[] = [];
  const inputFindings: CheckFinding[] = [];
  const roots = new Map<SourceDocument, string>();
  for (const { file, order, walked, patch, built, refused } of files) {
    if (refused) {
      for (const r of refused) inputFindings.push({ ...inputFinding(r.file, r.line, r.column, r.message), fix: r.fix });
      continue;
    }
    if (patch) {
      skipped.push({ order, reason: "patch" });
      continue;
    }
    try {
      let text = "";
      const read = () => (text = built ? built.text : file === "-" ? stdinOf(options) : readText(file));
      let documents: SourceDocument[];
      if (walked) {
        const found = readWalked(file, read);
        if ("skip" in found) {
          skipped.push({ order, reason: found.skip, ...(found.detail !== undefined ? { detail: found.detail } : {}) });
          continue;
        }
        if ("error" in found) {
          inputFindings.push(inputFinding(file, found.error.line, found.error.column, found.error.message));
          continue;
        }
        documents = found.documents;
      } else documents = parseManifests(read(), file === "-" ? STDIN_NAME : file);
      helmSources(text, documents.length)?.forEach((source, i) => helm.set(documents[i], source));
      if (built) for (const document of documents) roots.set(document, built.root);
      const loaded = loadObjects(documents);
      // Another tool's YAML (skaffold/v4beta6, an istio release note) is skipped as a walk skips a file without objects.
      if (options.kubeVersion !== undefined && loaded.problems.length === 0 && notKubernetesFile(loaded.objects, options.kubeVersion)) {
        skipped.push({ order, reason: "not-kubernetes" });
        continue;
      }
      for (const object of loaded.objects) objects.push(object);
      for (const [object, origin] of loaded.origins) origins.set(object, origin);
      if (walked) for (const p of loaded.placed) inputFindings.push(inputFinding(file, p.line, p.column, p.message));
      else for (const problem of loaded.problems) problems.push(problem);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      problems.push(error.message);
    }
  }
  const sources = { helm, roots, tree: treeOfGroup(files) };
  const checked = options.schemaOnly
    ? schemaOnlyChecked(objects, placer(origins, sources, options), options, identity)
    : checkLoaded(objects, origins, sources, options, problems);
  return { objects: objects.length, ...checked, findings: [...inputFindings, ...checked.findings], problems, skipped };
}

/** What a piped stream says of its objects' documents: helm's `# Source:` comments, a kustomize build's root. */
interface Sources {
  helm: Map<SourceDocument, string | undefined>;
  roots: Map<SourceDocument, string>;
  /** The real path of the repository the group's files are in: annotations name no file outside it (a piped stream's are the user's own). */
  tree?: string;
}

function treeOfGroup(files: readonly GroupFile[]): string | undefined {
  const first = files[0];
  if (!first || first.file === "-") return undefined;
  if (first.built) return first.built.tree;
  try {
    return treeOf(dirname(first.file)).real;
  } catch {
    return undefined;
  }
}

type Placed = Pick<CheckFinding, "file" | "line" | "column" | "input">;

/** Places a path of an input object in the file a person edits: the file read, or the one a piped stream names. */
function placer(origins: Map<K8sObject, Origin>, { helm, roots, tree }: Sources, options: CheckOptions): (object: K8sObject, path: PropertyKey[]) => Placed {
  const originals = new OriginalFiles(tree);
  return (object, path) => {
    const origin = origins.get(object)!;
    const at = origin.document.locate([...origin.prefix, ...path]);
    const input = { file: origin.file, line: at.line ?? 1, column: at.column ?? 1 };
    const written = writtenIn(object, helm.get(origin.document), roots.get(origin.document) ?? options.sourceRoot);
    // A build's origins sit under a temporary directory's path: named from here, as a walk names files.
    const built = roots.get(origin.document);
    if (written && built !== undefined) written.file = relativeHere(written.file);
    // A file named outside the repository is neither read nor named: the object stays where it was read.
    if (!written || !originals.inTree(written.file)) return { file: input.file, line: input.line, column: input.column };
    const there = originals.locate(written, object, path);
    // A value an overlay's patch set is placed in the patch (transformer annotations name the kustomizations).
    const root = built ?? options.sourceRoot;
    const named = built !== undefined ? relativeHere : (file: string) => file;
    const patched = there?.exact || root === undefined ? undefined : patchPlace(object, path, root, (f) => originals.documents(f), named);
    if (patched) return { ...patched, input };
    return { file: written.file, ...(there ? { line: there.line, column: there.column } : {}), input };
  };
}

function checkLoaded(
  objects: K8sObject[],
  origins: Map<K8sObject, Origin>,
  sources: Sources,
  options: CheckOptions,
  problems: string[],
): Pick<CheckReport, "profiles" | "findings" | "unrecognised"> & Pick<Judged, "notJudged"> {
  const normal = normalise(objects);
  const { profileOf, unrecognised } = classify(normal.objects, options.profile, (o) => normal.provenance.input(o));
  const crashed: { id: string; profile: SystemName; message: string }[] = [];
  const findings = catalog.checkObjects(normal.objects, (o) => profileOf.get(o), {
    run: runScope(options),
    onError: (rule, set, error) => crashed.push({ id: rule.id, profile: set.profile, message: (error as Error)?.message ?? String(error) }),
  });
  // Item by item: a spread of a hundred thousand arguments exceeds the stack.
  for (const finding of noteFindings(normal.notes, profileOf)) findings.push(finding);
  const waived = options.noWaivers ? findings : applyWaivers(findings, normal.objects, profileOf);
  const placeInput = placer(origins, sources, options);
  const place = (normalised: K8sObject, normalisedPath: readonly PropertyKey[]) => {
    const { object, path } = normal.provenance.written(normalised, normalisedPath);
    return placeInput(object, path);
  };
  const located = waived.map(
    (finding: Finding & { waived?: string }): CheckFinding => ({
      ...place(finding.object, finding.path),
      ruleId: finding.id,
      severity: finding.severity,
      ...(finding.profile ? { profile: finding.profile } : {}),
      object: identity(normal.provenance.input(finding.object)),
      path: formatPath(finding.path),
      message: finding.message,
      fix: finding.fix,
      ...(finding.because !== undefined ? { because: finding.because } : {}),
      ...(finding.waived !== undefined ? { waived: finding.waived } : {}),
    }),
  );
  const skipped = unrecognised.map((object): Unrecognised => {
    const { file, line } = place(object, []);
    const input = normal.provenance.input(object);
    return { file, ...(line !== undefined ? { line } : {}), object: objectRef(input), identity: identity(input), workload: isWorkloadKind(object.kind) };
  });
  const asWritten = inputProfiles(normal, profileOf);
  const schema =
    options.kubeVersion === undefined
      ? { findings: [], unchecked: [] }
      : schemaChecked(objects, options.kubeVersion, { place, profileOf: (o) => asWritten.get(o), identity });
  return {
    profiles: [...new Set(profileOf.values())],
    findings: [
      ...(options.strict ? [...located, ...skipped.filter((u) => u.workload).map(unrecognisedFinding)] : located),
      ...saidOnce(schema.findings, located),
    ],
    unrecognised: [...(options.strict ? skipped.filter((u) => !u.workload) : skipped), ...schema.unchecked],
    notJudged: crashesFolded(crashed, schema.findings, problems),
  };
}

/** Marks waived warnings, and adds a finding for each invalid waiver. */
function applyWaivers(findings: readonly Finding[], objects: readonly K8sObject[], profileOf: Map<K8sObject, SystemName>): (Finding & { waived?: string })[] {
  const waivers = new Map(
    objects.map((object) => {
      const profile = profileOf.get(object);
      return [object, waiversOf(object, catalog.allRules(), profile === undefined ? undefined : { profile, rules: catalog.rulesFor(profile) })];
    }),
  );
  const out: (Finding & { waived?: string })[] = findings.map((finding) => {
    const reason = finding.severity === "warning" ? waivers.get(finding.object)?.reasons.get(finding.id) : undefined;
    return reason === undefined ? finding : { ...finding, waived: reason };
  });
  for (const { problems } of waivers.values()) {
    out.push(
      ...problems.map((hit: RuleHit): Finding => ({ ...hit, id: WAIVER_RULE.id, profile: profileOf.get(hit.object), severity: "error", fix: WAIVER_RULE.fix })),
    );
  }
  return out;
}

/** An unrecognised workload as an error (`--strict`). */
function unrecognisedFinding(u: Unrecognised): CheckFinding {
  return {
    file: u.file,
    ...(u.line !== undefined ? { line: u.line, column: 1 } : {}),
    ruleId: UNRECOGNISED_RULE.id,
    severity: "error",
    object: u.identity,
    path: "",
    message: `${u.object} is not recognised as any profile (no known app.kubernetes.io/name label or shape)`,
    fix: UNRECOGNISED_RULE.fix,
  };
}

function identity(object: K8sObject): ObjectIdentity {
  const { namespace, name } = object.metadata ?? {};
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    ...(typeof namespace === "string" ? { namespace } : {}),
    ...(typeof name === "string" ? { name } : {}),
  };
}

function relativeHere(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel.startsWith("..") || isAbsolute(rel) ? file : rel;
}
