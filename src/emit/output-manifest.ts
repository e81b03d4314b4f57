// DIR/.rigging-output lists the files rigging wrote with their SHA-256, so a
// later render can tell a hand edit from its own output.
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { SAFE_FILE_NAME } from "./emit.ts";

/** The manifest of an output directory: the files rigging wrote there. */
export const MANIFEST = ".rigging-output";
/** Where the next manifest is written before it is renamed over MANIFEST. */
export const MANIFEST_NEXT = `${MANIFEST}.new`;
/** Manifests and kustomizations larger than this are not rigging's. */
export const READ_LIMIT = 1024 * 1024;
/** A rendered file is written as `.NAME.tmp` and renamed to NAME. */
export const tempOf = (name: string) => `.${name}.tmp`;
export const TEMP = /^\.[A-Za-z0-9][A-Za-z0-9._-]*\.tmp$/;
/** The longest name rigging writes (file systems allow 255 bytes). */
export const NAME_LIMIT = 250;
const SHA256 = /^[0-9a-f]{64}$/;

/** Per listed file, the checksums its content may have (a killed run may leave the old or the new). */
export type Checksums = ReadonlyMap<string, readonly string[]>;

/** What a manifest says: the files, and their checksums (undefined: a manifest from before checksums). */
export interface Manifest {
  files: string[];
  sha256: Checksums | undefined;
}

/** A name a manifest may list: a rendered file or a writer's temporary file. */
function listable(name: unknown): name is string {
  return typeof name === "string" && name.length <= NAME_LIMIT && (SAFE_FILE_NAME.test(name) || TEMP.test(name));
}

export const sha256Of = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

/** Opens `path` for reading without blocking on a FIFO; a descriptor of anything but a regular file is closed and refused. */
function openRegular(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  if (fstatSync(fd).isFile()) return fd;
  closeSync(fd);
  throw Object.assign(new Error("not a regular file"), { code: "EINVAL" });
}

/** A file's SHA-256, read in chunks (a file made huge by hand costs time, not memory); undefined when it is not there. */
export function fileSha256(path: string): string | undefined {
  let fd: number;
  try {
    fd = openRegular(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const hash = createHash("sha256");
    const chunk = Buffer.allocUnsafe(64 * 1024);
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) hash.update(chunk.subarray(0, n));
    return hash.digest("hex");
  } finally {
    closeSync(fd);
  }
}

export function manifestText(files: readonly string[], sha256?: Checksums): string {
  const note =
    "The files rigging wrote in this directory, with the SHA-256 of what it wrote. A later rigging render -o replaces and removes these files only, refuses a directory that holds anything else, and refuses to overwrite a file changed since (unless --force).";
  const sums = sha256 === undefined ? {} : { sha256: Object.fromEntries(files.filter((f) => sha256.has(f)).map((f) => [f, sha256.get(f)])) };
  return `${JSON.stringify({ "rigging-output": 1, note, files, ...sums }, null, 2)}\n`;
}

/** A small regular file's text, or undefined when it is larger than READ_LIMIT or unreadable. */
export function readSmall(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openRegular(path);
    if (fstatSync(fd).size > READ_LIMIT) return undefined;
    return readFileSync(fd, "utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** What a manifest lists, or undefined when it is not a manifest rigging wrote. */
export function readManifest(path: string): Manifest | undefined {
  const text = readSmall(path);
  if (text === undefined) return undefined;
  try {
    const data = JSON.parse(text) as { "rigging-output"?: unknown; files?: unknown; sha256?: unknown };
    if (data?.["rigging-output"] !== 1 || !Array.isArray(data.files) || !data.files.every(listable)) return undefined;
    const files = data.files as string[];
    if (data.sha256 === undefined) return { files, sha256: undefined };
    const sums = data.sha256;
    if (sums === null || typeof sums !== "object" || Array.isArray(sums)) return undefined;
    const listed = new Set(files);
    const entries = Object.entries(sums as Record<string, unknown>);
    const valid = ([name, list]: [string, unknown]) =>
      listed.has(name) && Array.isArray(list) && list.length <= 2 && list.every((s) => typeof s === "string" && SHA256.test(s));
    if (!entries.every(valid)) return undefined;
    return { files, sha256: new Map(entries as [string, string[]][]) };
  } catch {
    return undefined;
  }
}

/** Listed files whose content is not what rigging wrote, or cannot be told to be. */
export interface Changes {
  /** Their checksum is not one the manifest records: changed by hand. */
  changed: string[];
  /** No checksum recorded (an older rigging), and not what the new render writes. */
  unrecorded: string[];
  /** The checksum of every listed file found, as it is now. */
  found: Map<string, string>;
}

/** The `listed` files a render of `files` would overwrite or remove though they may hold edits. */
export function changedFiles(
  listed: readonly string[],
  sha256: Checksums | undefined,
  files: ReadonlyMap<string, string>,
  sumOf: (name: string) => string | undefined,
): Changes {
  const changes: Changes = { changed: [], unrecorded: [], found: new Map() };
  for (const name of listed) {
    if (TEMP.test(name)) continue; // a killed run's, never the user's
    const sum = sumOf(name);
    if (sum === undefined) continue;
    changes.found.set(name, sum);
    const recorded = sha256?.get(name);
    if (recorded !== undefined) {
      if (!recorded.includes(sum)) changes.changed.push(name);
    } else if (sum !== sha256Of(files.get(name) ?? "") || !files.has(name)) {
      changes.unrecorded.push(name);
    }
  }
  return changes;
}

/** Names as a sentence: `a`, `a and b`, `a, b and c`, sorted. */
export function listOf(names: readonly string[]): string {
  const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted.length === 1 ? sorted[0] : `${sorted.slice(0, -1).join(", ")} and ${sorted.at(-1)}`;
}
