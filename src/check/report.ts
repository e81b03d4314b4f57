// What `check` reports and the options it takes: the shapes every format (text, json, sarif, junit) reads.
import type { Applier } from "../k8s/gitops.ts";
import type { Severity, SystemName } from "../rules/engine.ts";
import type { WalkOptions } from "./inputs.ts";
import type { Skipped } from "./skipped.ts";
import type { SkippedFile } from "./walked.ts";

export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
}

export interface CheckFinding {
  /** The file to edit: the input file, or the file a piped object was written in (kpt, kustomize, helm). */
  file: string;
  /** Line and column in `file`; absent when the file is known but the line is not (a helm template). */
  line?: number;
  column?: number;
  ruleId: string;
  severity: Severity;
  /** The profile whose rules raised it. */
  profile?: SystemName;
  object: ObjectIdentity;
  /** Field path inside the object, as people write it: `spec.template.spec.hostUsers`. */
  path: string;
  message: string;
  fix: string;
  /** For a warning: why rigging asks for it although no source document or program does. */
  because?: string;
  /** The reason of the waiver that covers this warning (`rigging.dev/waive`). */
  waived?: string;
  /** Where the object was read, when `file` names another file (a piped stream's original file). */
  input?: { file: string; line: number; column: number };
}

export interface Unrecognised {
  file: string;
  line?: number;
  object: string;
  identity: ObjectIdentity;
  /** It runs pods (a Deployment, a DaemonSet...): reported as a skipped entry in every format, an error with --strict. */
  workload: boolean;
  /** A custom resource the Kubernetes schema has none for, and why: a skipped entry of rule schema in every format. */
  unchecked?: string;
}

export interface CheckReport {
  files: string[];
  objects: number;
  profiles: SystemName[];
  findings: CheckFinding[];
  skipped: Skipped[];
  unrecognised: Unrecognised[];
  /** Unreadable input: files, YAML errors, documents that are not objects (exit 2). */
  problems: string[];
  /** Entries of the directories given that were not read: not regular files, symlinks out of the tree, loops. */
  skippedInputs: string[];
  /** Walked files that hold no Kubernetes object, each with why. */
  skippedFiles: SkippedFile[];
  /** Directories the walk left out (.git, node_modules, --exclude): the first five, and how many in all. */
  skippedDirectories: string[];
  skippedDirectoryCount: number;
  /** Files --exclude or --include left out. */
  excludedFiles: number;
  /** Every input was a walked directory: finding no object there is not an input problem. */
  walkedOnly: boolean;
  /** How a worker thread stopped before it was done, when one did: the directory it held was judged on the main thread. */
  stoppedThread?: string;
  /** The profiles' rules ran (false with --schema-only: only rule schema did). */
  rulesRan: boolean;
}

export interface CheckOptions extends WalkOptions {
  /** Check every object against this profile instead of recognising it. */
  profile?: SystemName;
  /** Ignore every rigging.dev/waive annotation (`--no-waivers`). */
  noWaivers?: boolean;
  /** The directory the tool that built a piped stream read: origin paths are relative to it (`--source-root`). */
  sourceRoot?: string;
  /** What `-` holds, when the caller has read stdin already (check --passthrough), and why reading it failed. */
  stdin?: string;
  stdinError?: string;
  /** A workload no profile claims is an error finding, not a skipped entry (`--strict`). */
  strict?: boolean;
  /** Validate every object against the Kubernetes schema of this version (`--kube-version`, resolved): none when absent. */
  kubeVersion?: string;
  /** The Kubernetes schema alone (`--schema-only`): no normalising, no profile's rules. */
  schemaOnly?: boolean;
  /** The GitOps controllers the whole input names (set by the run): CR-06 asks whether each may apply the Runner. */
  appliers?: Applier[];
}
