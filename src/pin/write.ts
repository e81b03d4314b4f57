// Writes a values file's images back in place, keeping every other byte,
// unless the file changed since it was read.
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, constants, openSync, readSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseDocument, Scalar } from "yaml";
import { InternalError, UsageError } from "../core/errors.ts";
import { readText } from "../parse/read.ts";
import { printable } from "../core/printable.ts";
import type { ImageSite } from "./sites.ts";

/** The `yaml` package's options for the values' places; its own duplicate-key check is quadratic. */
export const PLACES = { uniqueKeys: false, strict: true, prettyErrors: false } as const;

export interface Edit {
  site: ImageSite;
  value: string;
}

/** The text with each image's scalar replaced in its own quoting, reparsed to prove it. */
export function applyEdits(text: string, edits: Edit[], file: string): string {
  let out = text;
  const ordered = [...edits].filter((e) => e.value !== e.site.text).sort((a, b) => b.site.node.range![0] - a.site.node.range![0]);
  for (const { site, value } of ordered) {
    const [start, end] = site.node.range!;
    const quoted =
      site.node.type === Scalar.QUOTE_DOUBLE
        ? `"${value}"`
        : site.node.type === Scalar.QUOTE_SINGLE
          ? `'${value}'`
          : site.node.type === Scalar.PLAIN
            ? value
            : undefined;
    if (quoted === undefined) throw new UsageError(`${printable(file)}: ${site.path} is a block scalar; write the image on one line to pin it`);
    out = out.slice(0, start) + quoted + out.slice(end);
  }
  const again = parseDocument(out, PLACES);
  for (const { site, value } of edits) {
    if (again.errors.length > 0 || again.getIn(site.keys) !== value) {
      throw new InternalError(`pin would not write ${site.path} as ${value} (a bug in rigging; nothing was written)`);
    }
  }
  return out;
}

/** Replaces the file atomically keeping its mode, unless it changed since `read`. */
export function writeInPlace(file: string, read: string, text: string): void {
  let target: string;
  let temp: string | undefined;
  try {
    target = realpathSync(file);
    const mode = statSync(target).mode & 0o7777;
    temp = join(dirname(target), `.${basename(target)}.rigging-pin-${randomBytes(4).toString("hex")}`);
    // The text read has no byte-order mark (the decoder drops it); the file keeps the one it had.
    writeFileSync(temp, startsWithBom(target) ? `${BOM}${text}` : text, { flag: "wx", mode });
    chmodSync(temp, mode);
    if (readNow(target) !== read) {
      rmSync(temp, { force: true });
      temp = undefined;
      throw new ChangedMeanwhile();
    }
    renameSync(temp, target);
  } catch (error) {
    if (temp) rmSync(temp, { force: true });
    if (error instanceof ChangedMeanwhile)
      throw new UsageError(`${printable(file)} changed while pin read the registry: nothing written, the file is as it is now; run pin again`);
    throw new UsageError(`${printable(file)}: cannot write: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

class ChangedMeanwhile extends Error {}

const BOM = "\uFEFF";

/** Whether a file begins with UTF-8's byte-order mark (EF BB BF). */
function startsWithBom(file: string): boolean {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const head = Buffer.alloc(3);
    return readSync(fd, head, 0, 3, 0) === 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
  } finally {
    closeSync(fd);
  }
}

/** The file's text as `readText` gives it, or undefined when it is gone or unreadable now. */
function readNow(file: string): string | undefined {
  try {
    return readText(file);
  } catch {
    return undefined;
  }
}
