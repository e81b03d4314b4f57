// `-o DIR` writes without ever deleting a file rigging did not write: DIR must
// be absent, empty or rigging's (by its manifest); DIR itself is never renamed.
import { type Dirent, lstatSync, mkdirSync, readdirSync, realpathSync, renameSync, rmdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parse } from "yaml";
import { kustomizationOf, SAFE_FILE_NAME } from "./emit.ts";
import { UsageError } from "../core/errors.ts";
import {
  type Changes,
  type Checksums,
  changedFiles,
  fileSha256,
  listOf,
  MANIFEST,
  MANIFEST_NEXT,
  manifestText,
  NAME_LIMIT,
  readManifest,
  readSmall,
  sha256Of,
  tempOf,
} from "./output-manifest.ts";

export { MANIFEST, manifestText } from "./output-manifest.ts";

/** The files of an output from a rigging without manifests, judged by its kustomization.yaml. */
function olderOutput(dir: string, entries: ReadonlyMap<string, Dirent>): string[] | undefined {
  if (!entries.get("kustomization.yaml")?.isFile()) return undefined;
  const text = readSmall(join(dir, "kustomization.yaml"));
  if (text === undefined) return undefined;
  let resources: unknown;
  try {
    resources = (parse(text) as { resources?: unknown })?.resources;
  } catch {
    return undefined;
  }
  if (
    !Array.isArray(resources) ||
    !resources.every((r) => typeof r === "string" && r.length <= NAME_LIMIT && SAFE_FILE_NAME.test(r) && r !== "kustomization.yaml")
  )
    return undefined;
  if (kustomizationOf(resources) !== text) return undefined;
  return [...resources, "kustomization.yaml"];
}

/** What rigging may replace in a directory, or why it is not rigging's. */
export type Ownership = { listed: string[]; manifest: boolean; sha256: Checksums | undefined } | { refusal: string };

/** Whether `dir` is empty or rigging's earlier output; anything else makes it foreign. */
export function ownership(dir: string, entries: readonly Dirent[]): Ownership {
  if (entries.length === 0) return { listed: [], manifest: false, sha256: undefined };
  const byName = new Map(entries.map((e) => [e.name, e]));
  let hasManifest = byName.has(MANIFEST);
  // A run killed as it began the directory leaves its manifest alone,
  // perhaps not yet written: nothing to keep.
  if (entries.every((e) => (e.name === MANIFEST || e.name === MANIFEST_NEXT) && e.isFile())) return { listed: [], manifest: hasManifest, sha256: undefined };
  let manifest = hasManifest && byName.get(MANIFEST)!.isFile() ? readManifest(join(dir, MANIFEST)) : undefined;
  // An empty manifest beside an older output: a takeover by a rigging that
  // created the manifest in place, killed before writing it.
  if (hasManifest && manifest === undefined && byName.get(MANIFEST)!.isFile() && readSmall(join(dir, MANIFEST)) === "") {
    const older = olderOutput(dir, byName);
    if (older !== undefined) {
      manifest = { files: older, sha256: undefined };
      hasManifest = false;
    }
  }
  if (hasManifest && manifest === undefined) return { refusal: `holds ${MANIFEST}, which is not a manifest rigging wrote` };
  const listed = manifest?.files ?? olderOutput(dir, byName);
  // The next manifest is rigging's name, whether a takeover's (no manifest yet) or a replacement's.
  const owned = new Set([...(listed ?? []), ...(hasManifest || listed !== undefined ? [MANIFEST, MANIFEST_NEXT] : [])]);
  const foreign = entries.filter((e) => !owned.has(e.name) || !e.isFile()).map((e) => e.name);
  if (foreign.length > 0) return { refusal: `holds ${someOf(foreign)}, which rigging did not write` };
  return { listed: listed ?? [], manifest: hasManifest, sha256: manifest?.sha256 };
}

/** Up to three names, sorted, and how many more. */
function someOf(names: string[]): string {
  const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const shown = sorted.slice(0, 3);
  const more = sorted.length - shown.length;
  if (more > 0) return `${shown.join(", ")} and ${more} more ${more === 1 ? "entry" : "entries"}`;
  return shown.length === 1 ? shown[0] : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}`;
}

/** Whether an error is the file system's (an errno code), not a bug of ours. */
export function isFsError(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code);
}

/** A file system error in words a person can act on. */
export function fsReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  const words: Record<string, string> = {
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EROFS: "read-only file system",
    ENOSPC: "no space left on the device",
    EDQUOT: "disk quota exceeded",
    ENAMETOOLONG: "file name too long",
    ENOENT: "no such file or directory",
    ENOTDIR: "a part of the path is not a directory",
    EISDIR: "is a directory",
    ELOOP: "too many levels of symbolic links",
    EEXIST: "already exists",
    EBUSY: "device or resource busy",
    EIO: "input/output error",
    EXDEV: "on another file system",
  };
  return (code && words[code]) ?? (error as Error)?.message ?? String(error);
}

/** `dir` as printed in messages about its contents: with a trailing slash. */
const shown = (dir: string) => (dir.endsWith("/") ? dir : `${dir}/`);

/** Deletes a file; one already gone is fine. */
function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/** Runs `step`, turning a file system error into a user error about `dir`. */
function step<T>(dir: string, what: string, run: () => T, after = ""): T {
  try {
    return run();
  } catch (error) {
    if (!isFsError(error)) throw error;
    throw new UsageError(`${dir}: cannot ${what}: ${fsReason(error)}${after}`);
  }
}

/** Makes `dir` (not its parents); answers whether it was created. */
export function prepareOutputDirectory(dir: string): boolean {
  let error: NodeJS.ErrnoException;
  try {
    if (statSync(dir).isDirectory()) return false;
    throw new UsageError(`${dir}: exists and is not a directory`);
  } catch (caught) {
    if (!isFsError(caught)) throw caught;
    error = caught;
  }
  if (error.code === "ENOENT") {
    try {
      mkdirSync(dir);
      return true;
    } catch (caught) {
      if (!isFsError(caught)) throw caught;
      error = caught;
      if (error.code === "ENOENT") throw new UsageError(`${dir}: cannot create the output directory: its parent does not exist`);
      if (error.code === "EEXIST") throw new UsageError(`${dir}: is a symlink to nothing; remove it or choose another directory`);
    }
  }
  if (error.code === "ENOTDIR") throw new UsageError(`${dir}: cannot create the output directory: ${notADirectory(dir)} is not a directory`);
  throw new UsageError(`${dir}: cannot create the output directory: ${fsReason(error)}`);
}

/** The nearest ancestor of `path` that exists and is not a directory. */
function notADirectory(path: string): string {
  const ancestors: string[] = [];
  for (let p = dirname(path); p !== dirname(p); p = dirname(p)) ancestors.unshift(p);
  for (const p of ancestors) {
    try {
      if (!statSync(p).isDirectory()) return p;
    } catch {
      break;
    }
  }
  return "a part of its path";
}

/** A refusal when one of `inputs` (the values files being rendered) is inside `dir`. */
function inputInside(dir: string, inputs: readonly string[]): string | undefined {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return undefined;
  }
  for (const input of inputs) {
    try {
      const file = realpathSync(input);
      if (dirname(file) === real) return `holds ${basename(file)}, the values file being rendered`;
    } catch {
      // An input that cannot be resolved was read already; nothing to protect.
    }
  }
  return undefined;
}

/** What rigging owns in `dir`, or a user error saying what is in the way. */
function ownedOrRefused(dir: string, entries: readonly Dirent[], inputs: readonly string[]): Owned {
  const inside = inputInside(dir, inputs);
  if (inside !== undefined) throw new UsageError(`${shown(dir)}: ${inside}; choose another directory`);
  const found = ownership(dir, entries);
  if ("refusal" in found) throw new UsageError(`${shown(dir)}: ${found.refusal}; choose an empty directory`);
  return found;
}

/**
 * Refuses an existing `dir` as writeDirectory would, before anything in it is
 * read for a summary: only then is every entry known to be a regular file of
 * rigging's (a FIFO there would block a read for ever). An absent DIR passes.
 */
export function refuseForeignOutput(dir: string, inputs: readonly string[]): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if (!isFsError(error)) throw error;
    return; // absent, or not a directory: writeDirectory says why
  }
  ownedOrRefused(dir, entries, inputs);
}

/** Whether `dir` is an earlier output of rigging's whose files may be read: its entries are all rigging's regular files. */
export function isOwnedOutput(dir: string): boolean {
  try {
    return !("refusal" in ownership(dir, readdirSync(dir, { withFileTypes: true })));
  } catch (error) {
    if (!isFsError(error)) throw error;
    return false;
  }
}

/**
 * Writes `files` into `dir` so it holds exactly them, deleting only rigging's
 * old files. The manifest always lists every file rigging may have there, so
 * a failure or kill at any step leaves DIR safe; edited files need `force`.
 */
export function writeDirectory(dir: string, files: ReadonlyMap<string, string>, inputs: readonly string[] = [], force = false): Overwritten {
  for (const name of files.keys()) {
    if (!SAFE_FILE_NAME.test(name) || name.length > NAME_LIMIT)
      throw new UsageError(`${dir}: refusing to write ${JSON.stringify(name)}: not a plain file name inside ${dir}`);
  }
  const created = prepareOutputDirectory(dir);
  const entries = step(dir, "read the directory", () => readdirSync(dir, { withFileTypes: true }));
  const found = ownedOrRefused(dir, entries, inputs);
  const at = (name: string) => join(dir, name);
  const changes = checkEdits(dir, dir, found, files, force);

  const old = found.listed;
  const names = [...files.keys()];
  const written = new Map(names.map((name) => [name, sha256Of(files.get(name)!)]));
  // Each file may hold, until the last step, what it holds now or what is written.
  const either = new Map<string, string[]>();
  for (const name of new Set([...old, ...names])) {
    const sums = [changes.found.get(name), written.get(name)].filter((s): s is string => s !== undefined);
    if (sums.length > 0) either.set(name, [...new Set(sums)]);
  }
  const intent = [...new Set([...old, ...names, ...names.map(tempOf)])];
  step(
    dir,
    `write ${MANIFEST}`,
    () => {
      try {
        putManifest(dir, intent, either);
      } catch (error) {
        try {
          removeFile(at(MANIFEST_NEXT));
        } catch {
          // Listed nowhere, but rigging's name: the next run removes it.
        }
        if (created) removeOwnedDirectory(dir);
        throw error;
      }
    },
    "; nothing was changed",
  );
  let current = "";
  try {
    for (const [name, text] of files) {
      current = name;
      removeFile(at(tempOf(name)));
      writeFileSync(at(tempOf(name)), text, { flag: "wx" });
    }
  } catch (error) {
    if (!isFsError(error)) throw error;
    // Back to how it was: no temporary file, the old manifest (or none).
    try {
      for (const name of names) removeFile(at(tempOf(name)));
      if (found.manifest) putManifest(dir, old, found.sha256);
      else removeFile(at(MANIFEST));
      if (created) removeOwnedDirectory(dir);
    } catch {
      // What could not be undone is listed in the manifest: the next run takes it over.
    }
    throw new UsageError(`${dir}: cannot write ${current}: ${fsReason(error)}; nothing was changed`);
  }
  const mixed = `; ${shown(dir)} holds complete files, old and new, all listed in ${MANIFEST}: render again`;
  step(dir, "write", () => names.forEach((name) => renameSync(at(tempOf(name)), at(name))), mixed);
  step(dir, "remove an old file", () => old.filter((name) => !files.has(name)).forEach((name) => removeFile(at(name))), mixed);
  const final = new Map([...written].map(([name, sum]) => [name, [sum]]));
  step(dir, `write ${MANIFEST}`, () => putManifest(dir, names, final), mixed);
  return overwrittenBy(changes, files);
}

/** Rigging's output `found` in `dir`, as it may be replaced by `files`. */
export type Owned = Exclude<Ownership, { refusal: string }>;

/** Files writing `files` would overwrite or remove though they may hold edits; an error naming them unless `force`. */
export function checkEdits(dir: string, label: string, found: Owned, files: ReadonlyMap<string, string>, force: boolean): Changes {
  const changes = step(label, "read a file rigging wrote", () => changedFiles(found.listed, found.sha256, files, (name) => fileSha256(join(dir, name))));
  if (!force) refuseChanges(label, changes, found.manifest);
  return changes;
}

/** What `--force` overwrote or removed, of `changes`. */
export function overwrittenBy(changes: Changes, files: ReadonlyMap<string, string>): Overwritten {
  const overwritten = [...changes.changed, ...changes.unrecorded];
  return { replaced: overwritten.filter((name) => files.has(name)), removed: overwritten.filter((name) => !files.has(name)) };
}

/** The line that names what `--force` overwrote in `dir`, or "" when nothing. */
export function overwrittenLines(dir: string, { replaced, removed }: Overwritten): string {
  const them = (names: string[]) => (names.length === 1 ? "it" : "them");
  const line = (verb: string, names: string[]) =>
    names.length === 0 ? "" : `${shown(dir)}: ${verb} ${listOf(names)}, changed since rigging wrote ${them(names)} (--force)\n`;
  return line("overwrote", replaced) + line("removed", removed);
}

/** The files `--force` overwrote (`replaced`) or removed, that were changed since rigging wrote them or had no checksum. */
export interface Overwritten {
  replaced: string[];
  removed: string[];
}

/** A user error naming the files a render would overwrite though they may hold someone's edit. */
function refuseChanges(dir: string, { changed, unrecorded }: Changes, manifest: boolean): void {
  const them = (names: string[], one: string, many: string) => (names.length === 1 ? one : many);
  if (changed.length > 0) {
    throw new UsageError(
      `${shown(dir)}: ${listOf(changed)} ${them(changed, "was", "were")} changed since rigging wrote ${them(changed, "it", "them")}; move the changes away, or render again with --force to overwrite ${them(changed, "it", "them")}`,
    );
  }
  if (unrecorded.length > 0) {
    const record = manifest ? `${MANIFEST} (an older rigging's)` : `the older rigging that wrote ${shown(dir)}`;
    throw new UsageError(
      `${shown(dir)}: ${listOf(unrecorded)} ${them(unrecorded, "differs", "differ")} from what this render writes, and ${record} records no checksum to tell an edit by hand; check ${them(unrecorded, "it", "them")}, then render again with --force`,
    );
  }
}

/** Writes the manifest listing `files` (with their checksums) under MANIFEST_NEXT, then renames it over MANIFEST. */
function putManifest(dir: string, files: readonly string[], sha256: Checksums | undefined): void {
  removeFile(join(dir, MANIFEST_NEXT));
  writeFileSync(join(dir, MANIFEST_NEXT), manifestText(files, sha256), { flag: "wx" });
  renameSync(join(dir, MANIFEST_NEXT), join(dir, MANIFEST));
}

/** Removes `dir` only when empty or rigging's; answers whether it is gone. */
export function removeOwnedDirectory(dir: string): boolean {
  try {
    // A symlink is never followed: what it points to is not this directory.
    if (!lstatSync(dir).isDirectory()) return false;
    const entries = readdirSync(dir, { withFileTypes: true });
    if ("refusal" in ownership(dir, entries)) return false;
    // What makes the directory recognisable goes last (the manifest, or an
    // older output's kustomization.yaml): a run killed here leaves it still rigging's.
    const last = (name: string) => (name === MANIFEST ? 2 : name === "kustomization.yaml" ? 1 : 0);
    for (const name of entries.map((e) => e.name).sort((a, b) => last(a) - last(b))) removeFile(join(dir, name));
    rmdirSync(dir);
    return true;
  } catch (error) {
    if (!isFsError(error)) throw error;
    return false;
  }
}
