// OUT/NAME is a symlink to a generation directory, swapped atomically by
// rename(2), so OUT/NAME is always a complete output.
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readlinkSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../core/errors.ts";
import {
  checkEdits,
  fsReason,
  isFsError,
  MANIFEST,
  manifestText,
  type Owned,
  type Overwritten,
  overwrittenBy,
  ownership,
  removeOwnedDirectory,
} from "./output-dir.ts";
import { type Changes, sha256Of } from "./output-manifest.ts";

/** NAME as it appears in hidden names: bounded, so `.NAME.<n>` fits 255 bytes. */
export function hiddenBase(name: string): string {
  if (name.length <= 200) return name;
  return `${name.slice(0, 180)}-${createHash("sha256").update(name).digest("hex").slice(0, 12)}`;
}

/** The form hiddenBase gives a longer name: a NAME of this form would share that name's generations. */
const LONG_BASE = /^[A-Za-z0-9][A-Za-z0-9._-]{179}-[0-9a-f]{12}$/;

/** Why NAME cannot be a fleet member, or undefined: its hidden names may be another member's. */
export function reservedName(name: string): string | undefined {
  if (!LONG_BASE.test(name)) return undefined;
  return "is named like the hidden generations of a name over 200 characters (its first 180, '-' and 12 hex digits), which that member's would share; rename the file";
}

/** A generation's suffix (`.NAME.3`), or the staging and backup of a rigging before generations. */
const SUFFIX = /^(?:\d{1,15}|link|(?:old|new)-\d+-[0-9a-z]+)$/;

/** OUT's entries, read once per fleet so no NAME needs a scan of OUT. */
export function fleetListing(out: string): { leftovers: Map<string, string[]>; names: Set<string> } {
  const found = new Map<string, string[]>();
  const names = new Set(readdirSync(out));
  for (const entry of names) {
    const dot = entry.lastIndexOf(".");
    if (!entry.startsWith(".") || dot <= 1 || !SUFFIX.test(entry.slice(dot + 1))) continue;
    const base = entry.slice(1, dot);
    found.set(base, [...(found.get(base) ?? []), entry]);
  }
  return { leftovers: found, names };
}

/** The generation number a hidden name or link target stands for, if it is one of `base`'s. */
function generationOf(base: string, name: string): number | undefined {
  const prefix = `.${base}.`;
  if (!name.startsWith(prefix) || !/^\d{1,15}$/.test(name.slice(prefix.length))) return undefined;
  return Number(name.slice(prefix.length));
}

/** Writes `files` as OUT/NAME; `absent` says OUT held nothing of NAME's when read. */
export function writeFleetMember(
  out: string,
  name: string,
  files: ReadonlyMap<string, string>,
  leftovers: readonly string[],
  absent = false,
  force = false,
): Overwritten {
  const base = hiddenBase(name);
  if (absent && leftovers.length === 0) {
    if (writeNewMember(out, name, files)) return NOTHING;
    // Taken since OUT was read: what is there now decides, as for any NAME.
    leftovers = fleetListing(out).leftovers.get(base) ?? [];
  }
  const target = join(out, name);
  const fail = (what: string, error: unknown): never => {
    if (!isFsError(error)) throw error;
    throw new UsageError(`${target}: cannot ${what}: ${fsReason(error)}`);
  };
  // What OUT/NAME is now: absent, rigging's link, or a directory of an older rigging's.
  let current: number | undefined;
  let directory = false;
  let changes: Changes | undefined;
  let stat;
  try {
    stat = lstatSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") fail("read it", error);
  }
  if (stat?.isSymbolicLink()) {
    const link = readlinkSync(target);
    current = generationOf(base, link);
    if (current === undefined) throw new UsageError(`${target}: is a symlink to ${link}, which rigging did not make; move it away`);
    // A file someone added to the current output would vanish from OUT/NAME with the swap.
    const shown = join(out, link);
    if (lstatSync(shown, { throwIfNoEntry: false })?.isDirectory()) changes = checkEdits(shown, target, refuseForeign(target, shown), files, force);
  } else if (stat?.isDirectory()) {
    changes = checkEdits(target, target, refuseForeign(target, target), files, force);
    directory = true;
  } else if (stat) {
    throw new UsageError(`${target}: exists and is not a directory rigging wrote; move it away`);
  }

  const seen = leftovers.map((entry) => generationOf(base, entry)).filter((n): n is number => n !== undefined);
  let next = Math.max(0, current ?? 0, ...seen) + 1;
  const aside = directory ? next++ : undefined;
  const generation = `.${base}.${next}`;
  const staging = join(out, generation);

  writeGeneration(staging, generation, files, fail);

  const link = join(out, `.${base}.link`);
  try {
    removeOurLink(link, base);
    symlinkSync(generation, link);
    // A directory cannot be replaced by a link in one rename: it is moved
    // aside just before, once, when an older rigging's output is taken over.
    if (aside !== undefined) renameSync(target, join(out, `.${base}.${aside}`));
    try {
      renameSync(link, target);
    } catch (error) {
      if (aside !== undefined) renameSync(join(out, `.${base}.${aside}`), target);
      throw error;
    }
  } catch (error) {
    removeOwnedDirectory(staging);
    fail("replace it", error);
  }

  // The previous generation and leftovers of killed runs, when they are rigging's.
  const stale = new Set([
    ...leftovers.filter((entry) => entry !== generation && entry !== `.${base}.link`),
    ...[current, aside].filter((n) => n !== undefined).map((n) => `.${base}.${n}`),
  ]);
  for (const entry of stale) removeOwnedDirectory(join(out, entry));
  return changes === undefined ? NOTHING : overwrittenBy(changes, files);
}

const NOTHING: Overwritten = { replaced: [], removed: [] };

/** Writes a generation, manifest first, so a killed run leaves a directory the next run recognises as its own. */
function writeGeneration(staging: string, name: string, files: ReadonlyMap<string, string>, fail: (what: string, error: unknown) => never): void {
  try {
    mkdirSync(staging);
  } catch (error) {
    fail(`create ${name}`, error);
  }
  try {
    writeFileSync(inside(staging, MANIFEST), manifestOf(files), NEW_TEXT_FILE);
    for (const [file, text] of files) writeFileSync(inside(staging, file), text, NEW_TEXT_FILE);
  } catch (error) {
    removeOwnedDirectory(staging);
    fail("write", error);
  }
}

/** Created, never overwritten; naming the encoding takes Node's one-call path. */
const NEW_TEXT_FILE = { flag: "wx", encoding: "utf8" } as const;

/** The manifest of a generation of `files`, with what each holds, as `-o DIR` writes it. */
function manifestOf(files: ReadonlyMap<string, string>): string {
  return manifestText([...files.keys()], new Map([...files].map(([name, text]) => [name, [sha256Of(text)]])));
}

/** A new OUT/NAME: write generation 1 and link to it without reads or renames; false, having written nothing, if NAME appeared meanwhile. */
function writeNewMember(out: string, name: string, files: ReadonlyMap<string, string>): boolean {
  const base = hiddenBase(name);
  const target = entryOf(out, name);
  const generation = `.${base}.1`;
  const staging = entryOf(out, generation);
  const fail = (what: string, error: unknown): never => {
    if (!isFsError(error)) throw error;
    if (error.code === "EEXIST" && what.startsWith("create")) throw TAKEN;
    throw new UsageError(`${target}: cannot ${what}: ${fsReason(error)}`);
  };
  try {
    writeGeneration(staging, generation, files, fail);
  } catch (error) {
    if (error === TAKEN) return false;
    throw error;
  }
  try {
    symlinkSync(generation, target);
  } catch (error) {
    removeOwnedDirectory(staging);
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    fail("replace it", error);
  }
  return true;
}

/** Path joins by concatenation, as rigging's names are single segments. */
let lastOut: string | undefined;
let outPrefix = "";
export function entryOf(out: string, name: string): string {
  if (!isSegment(name)) return join(out, name);
  if (out !== lastOut) {
    outPrefix = join(out, "x").slice(0, -1); // "out/", "/" for the root, "" for "." and ""
    lastOut = out;
  }
  return outPrefix + name;
}

/** `join(dir, name)` where dir is a path join made (normal: no `.` or `..` inside, and the root or `.` only alone). */
export function inside(dir: string, name: string): string {
  return isSegment(name) && dir.length > 0 && dir !== "." && !dir.endsWith("/") ? `${dir}/${name}` : join(dir, name);
}

const isSegment = (name: string) => name.length > 0 && name !== "." && name !== ".." && !name.includes("/");

/** Thrown through writeNewMember when its name was taken after OUT was read. */
const TAKEN = Symbol("taken");

/** What rigging wrote in `dir` (what OUT/NAME shows); a user error when it holds anything else. */
function refuseForeign(target: string, dir: string): Owned {
  let found;
  try {
    found = ownership(dir, readdirSync(dir, { withFileTypes: true }));
  } catch (error) {
    if (!isFsError(error)) throw error;
    throw new UsageError(`${target}: cannot read it: ${fsReason(error)}`);
  }
  if ("refusal" in found) throw new UsageError(`${target}/: ${found.refusal}; move it away`);
  return found;
}

/** Removes `.NAME.link` when it is a symlink to one of NAME's generations (a killed run's). */
function removeOurLink(link: string, base: string): void {
  let target: string;
  try {
    target = readlinkSync(link);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    if (code === "EINVAL") throw new UsageError(`${link}: is not a symlink rigging made; move it away`);
    throw error;
  }
  if (generationOf(base, target) === undefined) throw new UsageError(`${link}: is a symlink to ${target}, which rigging did not make; move it away`);
  unlinkSync(link);
}
